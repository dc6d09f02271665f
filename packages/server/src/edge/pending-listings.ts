/**
 * The `tools/list` requests the edge is relaying now, per tunnel and session. While one is
 * pending, an answer to another request of the same session that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight are held, so the map stays as
 * small as the node's traffic.
 */
export class PendingListings {
  readonly #counts = new Map<string, number>()

  /** A listing for `tunnelId`'s session `sessionId` is in flight until the returned call. */
  add(tunnelId: string, sessionId: string | undefined): () => void {
    const key = keyOf(tunnelId, sessionId)
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1)
    let done = false
    return () => {
      if (done) return
      done = true
      const left = (this.#counts.get(key) ?? 1) - 1
      if (left > 0) this.#counts.set(key, left)
      else this.#counts.delete(key)
    }
  }

  /** Whether a listing of `tunnelId`'s session `sessionId` is in flight. */
  has(tunnelId: string, sessionId: string | undefined): boolean {
    return this.#counts.has(keyOf(tunnelId, sessionId))
  }

  /** Sessions with a listing in flight (for tests and metrics). */
  get size(): number {
    return this.#counts.size
  }
}

/** Requests without a session (stateless servers, 2026-07-28) share their tunnel's key. */
function keyOf(tunnelId: string, sessionId: string | undefined): string {
  return `${tunnelId}\n${sessionId ?? ''}`
}
