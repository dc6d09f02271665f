/**
 * How often an owner may change who may call their tunnels: the access mode and allowlist, agent
 * tokens made and revoked, OAuth agents disconnected, and the tunnel key rotated. Each such write
 * tells every node (a cluster event), which then checks the tunnel's open requests again (or
 * closes its client's connection), so a loop on one of these routes costs every node work. Held
 * per tunnel and per account, like policy writes (every node together with several nodes); the
 * dashboard and the JSON API spend the same buckets.
 */
import { HttpError } from '../http/http-error.js'
import type { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'

/** Access writes one tunnel may make at once, and per minute on average (all nodes together). */
export const ACCESS_WRITES_PER_MINUTE = 30

/** Access writes one account may make to all its tunnels at once, and per minute on average. */
export const ACCOUNT_ACCESS_WRITES_PER_MINUTE = 120

/** Options of `new AccessWriteLimits`. */
export interface AccessWriteLimitsOptions {
  /** Milliseconds clock (tests pass their own). */
  readonly now?: () => number
  /** Where the budgets are kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** The per-tunnel and per-account budgets of access writes. */
export class AccessWriteLimits {
  readonly #tunnels: RateLimiter
  readonly #accounts: RateLimiter

  constructor(opts: AccessWriteLimitsOptions = {}) {
    const clock = opts.now ? { now: opts.now } : {}
    const limits = opts.limits ?? localRateLimits
    this.#tunnels = limits.limiter('access-writes.tunnel', {
      capacity: ACCESS_WRITES_PER_MINUTE,
      perMs: 60_000,
      ...clock,
    })
    this.#accounts = limits.limiter('access-writes.account', {
      capacity: ACCOUNT_ACCESS_WRITES_PER_MINUTE,
      perMs: 60_000,
      ...clock,
    })
  }

  /**
   * Spend one write of `tunnelId` (of `accountId`), before the write is checked or made: refused
   * writes cost their check too. Throws `HttpError` 429 `rate_limited` with `retry_after_secs`
   * when either budget is empty; then neither is spent.
   */
  spend(accountId: string, tunnelId: string): void {
    const tunnel = this.#tunnels.peek(tunnelId)
    if (!tunnel.ok) {
      throw refusal(
        `this tunnel's access changed ${ACCESS_WRITES_PER_MINUTE} times in the last minute`,
        tunnel.retryAfterSecs,
      )
    }
    const account = this.#accounts.take(accountId)
    if (!account.ok) {
      throw refusal(
        `this account's tunnels' access changed ${ACCOUNT_ACCESS_WRITES_PER_MINUTE} times in the last minute`,
        account.retryAfterSecs,
      )
    }
    this.#tunnels.take(tunnelId)
  }
}

function refusal(what: string, wait: number): HttpError {
  return new HttpError(429, 'rate_limited', `${what}; try again in ${wait} s`, {
    retry_after_secs: wait,
  })
}
