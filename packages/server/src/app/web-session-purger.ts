/**
 * Expired browser sessions deleted from the store, at start and every hour: they are refused
 * already, but each sign-in left its row for good (found by a hostile review). Every node runs
 * it; the deletes are the same on each.
 */
import type { Logger } from '@burrow/protocol'
import type { WebSessionStore } from '../store/web-session-store.js'

/** How often expired sessions are deleted. */
const PURGE_INTERVAL_MS = 60 * 60 * 1000

/** A running purge of expired sessions; `close` stops it. */
export class WebSessionPurger {
  readonly #sessions: WebSessionStore
  readonly #log: Logger
  readonly #timer: NodeJS.Timeout
  #running: Promise<void> | null = null

  constructor(sessions: WebSessionStore, log: Logger, intervalMs = PURGE_INTERVAL_MS) {
    this.#sessions = sessions
    this.#log = log
    this.#timer = setInterval(() => void this.run(), intervalMs)
    this.#timer.unref()
    void this.run()
  }

  /** Delete expired sessions now (unless a purge is running); never rejects. */
  run(): Promise<void> {
    this.#running ??= this.#sessions
      .purgeExpired()
      .then((n) => {
        if (n > 0) this.#log.debug(`web sessions: deleted ${n} expired`)
      })
      .catch((error: Error) => this.#log.warn(`web sessions: purge failed: ${error.message}`))
      .finally(() => {
        this.#running = null
      })
    return this.#running
  }

  /** Stop purging; waits for a purge in progress. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.#running
  }
}
