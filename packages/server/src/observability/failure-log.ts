/**
 * The log of requests burrowd failed to handle. A failure whose cause lasts (the database or Redis
 * unreachable) fails every request meanwhile, and strangers choose how many requests that is: the
 * first failure of each window is logged with its stack, the others are counted and said in one
 * line when the next window's first failure comes (found by a hostile review: a Redis outage
 * wrote one stack per request, as fast as anyone sent them).
 */
import type { Logger } from '@burrow/protocol'

/** Milliseconds in which at most one failure's stack is logged. */
export const FAILURE_LOG_WINDOW_MS = 10_000

/** Logs failed requests, one stack per window. */
export class FailureLog {
  readonly #log: Logger
  readonly #clock: () => number
  #windowStart = -Infinity
  #unlogged = 0
  #lastUnlogged = ''

  constructor(log: Logger, clock: () => number = () => Date.now()) {
    this.#log = log
    this.#clock = clock
  }

  /** A request failed with `err`. */
  failed(err: Error): void {
    const now = this.#clock()
    if (now - this.#windowStart < FAILURE_LOG_WINDOW_MS) {
      this.#unlogged += 1
      this.#lastUnlogged = err.message
      return
    }
    if (this.#unlogged > 0) {
      const seconds = Math.round(FAILURE_LOG_WINDOW_MS / 1000)
      this.#log.error(
        `${this.#unlogged} more request(s) failed in the ${seconds} s after the last one logged ` +
          `(the last with: ${this.#lastUnlogged.slice(0, 200)})`,
      )
      this.#unlogged = 0
    }
    this.#windowStart = now
    this.#log.error(`request failed: ${err.stack ?? err.message}`)
  }
}
