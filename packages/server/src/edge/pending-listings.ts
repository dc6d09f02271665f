/**
 * The `tools/list` requests the edge is relaying now, per tunnel and session (or, for requests
 * without one, client address: the caller names the scope), and the sessions
 * whose server just said its tools changed (an agent lists them again soon after). While either
 * holds, an answer to another request of the same session that the edge could not read whole
 * (past the bound of its copy) may be the agent's listing in disguise: agents match an answer by
 * its id, whatever response carries it. Only requests in flight and expectations of the last
 * half minute are kept, so the maps stay as small as the node's traffic.
 */

/** How long after a relayed `notifications/tools/list_changed` a listing is expected. */
export const EXPECT_LISTING_MS = 30_000

export class PendingListings {
  readonly #counts = new Map<string, number>()
  /**
   * Keys expecting a listing, with when the expectation lapses: in the order noted, and every
   * expectation lasts as long, so the lapsed ones are always first.
   */
  readonly #expected = new Map<string, number>()
  readonly #now: () => number

  constructor(now: () => number = () => performance.now()) {
    this.#now = now
  }

  /** A listing for `tunnelId`'s `scope` (its session) is in flight until the returned call. */
  add(tunnelId: string, scope: string | undefined): () => void {
    const key = keyOf(tunnelId, scope)
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

  /** The server told `scope` its tools changed: a listing is expected until one comes. */
  expect(tunnelId: string, scope: string | undefined): void {
    this.#note(keyOf(tunnelId, scope), EXPECT_LISTING_MS)
  }

  /** Expect a listing of `key` for `ms`, sweeping lapsed expectations from the oldest on. */
  #note(key: string, ms: number): void {
    const now = this.#now()
    for (const [old, until] of this.#expected) {
      if (until > now) break
      this.#expected.delete(old)
    }
    const until = Math.max(now + ms, this.#expected.get(key) ?? 0)
    this.#expected.delete(key) // noted again: to the end of the order
    this.#expected.set(key, until)
  }

  /** Whether a listing of `tunnelId`'s `scope` is in flight or expected. */
  has(tunnelId: string, scope: string | undefined): boolean {
    const key = keyOf(tunnelId, scope)
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

/** One key per tunnel and scope (tunnel ids hold no line end). */
function keyOf(tunnelId: string, scope: string | undefined): string {
  return `${tunnelId}\n${scope ?? ''}`
}
