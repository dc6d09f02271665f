/**
 * The `tools/list` requests the edge is relaying now, per tunnel and session, and the sessions
 * whose server just said its tools changed (an agent lists them again soon after). While either
 * holds, an answer to another request of the same session that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight and expectations of the last
 * half minute are kept, so the maps stay as small as the node's traffic.
 */

/** How long after a relayed `notifications/tools/list_changed` a listing is expected. */
export const EXPECT_LISTING_MS = 30_000

/** Past this many expectations, expired ones are swept before another is noted. */
const SWEEP_AT = 1024

export class PendingListings {
  readonly #counts = new Map<string, number>()
  /** Keys expecting a listing, with when the expectation lapses. */
  readonly #expected = new Map<string, number>()
  readonly #now: () => number

  constructor(now: () => number = () => performance.now()) {
    this.#now = now
  }

  /** A listing for `tunnelId`'s session `sessionId` is in flight until the returned call. */
  add(tunnelId: string, sessionId: string | undefined): () => void {
    const key = keyOf(tunnelId, sessionId)
    this.#expected.delete(key) // it came: its own count holds from here
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

  /** The server told the session its tools changed: a listing is expected until one comes. */
  expect(tunnelId: string, sessionId: string | undefined): void {
    const now = this.#now()
    if (this.#expected.size >= SWEEP_AT) {
      for (const [key, until] of this.#expected) if (until <= now) this.#expected.delete(key)
    }
    this.#expected.set(keyOf(tunnelId, sessionId), now + EXPECT_LISTING_MS)
  }

  /** Whether a listing of `tunnelId`'s session `sessionId` is in flight or expected. */
  has(tunnelId: string, sessionId: string | undefined): boolean {
    const key = keyOf(tunnelId, sessionId)
    if (this.#counts.has(key)) return true
    const until = this.#expected.get(key)
    if (until === undefined) return false
    if (until > this.#now()) return true
    this.#expected.delete(key)
    return false
  }

  /** Sessions with a listing in flight or expected (for tests). */
  get size(): number {
    return this.#counts.size + this.#expected.size
  }
}

/** Requests without a session (stateless servers, 2026-07-28) share their tunnel's key. */
function keyOf(tunnelId: string, sessionId: string | undefined): string {
  return `${tunnelId}\n${sessionId ?? ''}`
}
