/**
 * Hands each `quota.warning` to its listener, and offers it again while the listener fails. A
 * counter crosses 80% of its limit once a month, so a warning the listener could not take (the
 * database away for a moment while it recorded the warning or read the tunnel) was never sent:
 * the tunnel's owner learnt of the limit from the `429` (found by a hostile review). Offered
 * again every `WARNING_RETRY_MS` until the listener takes it or its month is over; at most
 * `MAX_WAITING_WARNINGS` wait (past it, and for a month over, the warning is dropped, logged).
 * The listener keeps a warning once per tunnel, metric and month (`webhooks/quota-warning.ts`),
 * so one offered again after it was taken is not sent twice.
 */
import type { Logger } from '@burrow/protocol'
import { periodOf } from './period.js'
import type { QuotaWarning, QuotaWarningListener } from './quota-warning.js'

/** How often a warning whose listener failed is offered again (ms). */
export const WARNING_RETRY_MS = 5000
/** Most warnings waiting to be offered again. */
export const MAX_WAITING_WARNINGS = 10_000

/** Offers warnings to a listener, again while it fails. */
export class WarningOffers {
  readonly #listener: QuotaWarningListener
  readonly #log: Logger
  readonly #clock: () => Date
  /** Warnings the listener failed to take, by tunnel, month and metric. */
  readonly #waiting = new Map<string, QuotaWarning>()
  #timer: NodeJS.Timeout | null = null
  #closed = false

  constructor(listener: QuotaWarningListener, log: Logger, clock: () => Date) {
    this.#listener = listener
    this.#log = log
    this.#clock = clock
  }

  /** Hand `warning` to the listener, off the caller's path. */
  offer(warning: QuotaWarning, again = false): void {
    const failed = (error: unknown) => this.#failed(warning, error, again)
    try {
      const done = this.#listener(warning)
      if (done instanceof Promise) done.catch(failed)
    } catch (error) {
      failed(error)
    }
  }

  /** Warnings waiting to be offered again (tests). */
  get waiting(): number {
    return this.#waiting.size
  }

  /** Stop offering again; what waits is dropped. */
  close(): void {
    this.#closed = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    if (this.#waiting.size > 0) {
      this.#log.error(
        `quota: ${this.#waiting.size} quota.warning events not sent (listener failing)`,
      )
    }
    this.#waiting.clear()
  }

  #failed(warning: QuotaWarning, error: unknown, again: boolean): void {
    const { tunnelId, metric, period } = warning
    const why = (error as Error | undefined)?.message ?? String(error)
    const key = `${tunnelId} ${period} ${metric}`
    if (this.#closed) {
      // A listener that failed after `close` (the store closing under it): not offered again.
      this.#log.error(`quota: quota.warning for ${tunnelId} ${metric} not sent: ${why}`)
      return
    }
    if (!again) {
      this.#log.error(
        `quota: the quota.warning listener failed for ${tunnelId} ${metric}: ${why}; trying again`,
      )
    }
    if (this.#waiting.size >= MAX_WAITING_WARNINGS && !this.#waiting.has(key)) {
      this.#log.error(`quota: quota.warning for ${tunnelId} ${metric} dropped (too many waiting)`)
      return
    }
    this.#waiting.set(key, warning)
    if (this.#timer === null) {
      this.#timer = setTimeout(() => this.#offerAgain(), WARNING_RETRY_MS)
      this.#timer.unref()
    }
  }

  #offerAgain(): void {
    this.#timer = null
    const current = periodOf(this.#clock())
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const warning of waiting) {
      if (warning.period < current) {
        this.#log.error(
          `quota: quota.warning for ${warning.tunnelId} ${warning.metric} dropped: ${warning.period} is over`,
        )
        continue
      }
      this.offer(warning, true)
    }
  }
}
