/**
 * How often one account may ask for metrics reports (`GET /api/tunnels/:id/metrics` and the
 * dashboard's Metrics tab alike). A report reads at most a few dozen periods of its tunnel's
 * rows (`governance/metrics-report.ts`), a few tens of thousands of rows for a tunnel whose agent
 * invents 1,000 names a day, and on SQLite every tenant of the node waits while it does: without
 * a budget, one account asking in a loop kept the event loop busy however cheap each report was.
 * Held per account, every node together where the node shares its rate limits.
 */
import { HttpError } from '../http/http-error.js'
import type { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'

/** Reports one account may ask for at once, and per minute on average. */
export const METRICS_REPORTS_PER_MINUTE = 30

/** Options of `new MetricsReportLimits`. */
export interface MetricsReportLimitsOptions {
  /** Milliseconds clock (tests pass their own). */
  readonly now?: () => number
  /** Where the budgets are kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** The per-account budget of metrics reports. */
export class MetricsReportLimits {
  readonly #accounts: RateLimiter

  constructor(opts: MetricsReportLimitsOptions = {}) {
    this.#accounts = (opts.limits ?? localRateLimits).limiter('metrics-reports.account', {
      capacity: METRICS_REPORTS_PER_MINUTE,
      perMs: 60_000,
      ...(opts.now ? { now: opts.now } : {}),
    })
  }

  /**
   * Spend one report of `accountId`, before it is read. Throws `HttpError` 429 `rate_limited`
   * with `retry_after_secs` when the budget is empty.
   */
  spend(accountId: string): void {
    const decision = this.#accounts.take(accountId)
    if (!decision.ok) {
      const wait = decision.retryAfterSecs
      throw new HttpError(
        429,
        'rate_limited',
        `this account asked for ${METRICS_REPORTS_PER_MINUTE} metrics reports in the last minute; try again in ${wait} s`,
        { retry_after_secs: wait },
      )
    }
  }
}
