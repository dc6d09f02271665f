/**
 * The sessions whose calls were cancelled in the last few seconds. A server may have written a
 * server→client request for a call before the cancellation reached it; until the grace passes,
 * such a session still counts as one with a call in flight when deciding which agent a request
 * is for (`call-table.ts`, the aggregator's `upstream-calls.ts`), so the request is refused rather
 * than handed to another agent whose call happens to be the only one left.
 */

/**
 * Default grace after a cancellation, in milliseconds. MCP lets a server ignore a cancellation,
 * so its question for the cancelled call may come much later; long enough for a tool that runs
 * on, short enough that one agent's Stop does not keep others from being asked for long.
 */
export const CANCEL_GRACE_MS = 30_000

/** Keys (sessions) with a cancellation younger than the grace, oldest first. */
export class RecentCancels<K> {
  readonly #until = new Map<K, number>()
  readonly #graceMs: number
  readonly #now: () => number

  constructor(graceMs = CANCEL_GRACE_MS, now: () => number = () => performance.now()) {
    this.#graceMs = graceMs
    this.#now = now
  }

  /** `key` had a call cancelled now. */
  add(key: K): void {
    this.#prune()
    // Re-inserted at the end, so the map stays ordered by expiry.
    this.#until.delete(key)
    this.#until.set(key, this.#now() + this.#graceMs)
  }

  /** The keys still within their grace. */
  keys(): K[] {
    this.#prune()
    return [...this.#until.keys()]
  }

  /** Forget everything (the server is gone). */
  clear(): void {
    this.#until.clear()
  }

  #prune(): void {
    const now = this.#now()
    for (const [key, until] of this.#until) {
      if (until > now) return
      this.#until.delete(key)
    }
  }
}
