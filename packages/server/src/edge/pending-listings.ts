/**
 * The `tools/list` requests the edge is relaying now, per tunnel and scope (the agent's session,
 * or for requests without one its client address: the caller names the scope). While one is
 * pending, an answer to another request of the same scope that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight are held, so the map stays as
 * small as the node's traffic.
 */
export class PendingListings {
  readonly #counts = new Map<string, number>()

  /** A listing for `tunnelId`'s `scope` is in flight until the returned call. */
  add(tunnelId: string, scope: string | undefined): () => void {
    const key = keyOf(tunnelId, scope)
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

  /** Whether a listing of `tunnelId`'s `scope` is in flight. */
  has(tunnelId: string, scope: string | undefined): boolean {
    return this.#counts.has(keyOf(tunnelId, scope))
  }

  /** Scopes with a listing in flight (for tests). */
  get size(): number {
    return this.#counts.size
  }
}

/** One key per tunnel and scope (tunnel ids hold no line end). */
function keyOf(tunnelId: string, scope: string | undefined): string {
  return `${tunnelId}\n${scope ?? ''}`
}
