/**
 * How often one grant may refresh its tokens. Each refresh that rotates the token remembers the
 * replaced one (hashed) for up to 30 days, so that a stolen token presented later revokes the
 * grant; without a bound, a client looping on the token endpoint with its own refresh tokens
 * grew the database by a row per loop. MCP clients refresh about once an hour (when their access
 * token ends), and a refresh repeated at once by parallel calls replaces nothing and is not
 * counted. Kept like the other rate limits (every node together with several nodes).
 */
import type { RateLimiter } from '../../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../../http/rate-limits.js'
import { OauthError } from './oauth-error.js'

/** Refreshes one grant may make at once, and per hour on average (all nodes together). */
export const REFRESHES_PER_HOUR = 20

/** The per-grant budget of refreshes. */
export class RefreshLimit {
  readonly #limiter: RateLimiter

  constructor(now?: () => number, limits: RateLimits = localRateLimits) {
    this.#limiter = limits.limiter('oauth.refreshes', {
      capacity: REFRESHES_PER_HOUR,
      perMs: 3600_000,
      ...(now ? { now } : {}),
    })
  }

  /**
   * Refuse a refresh of grant `grantId` whose budget is empty, before its token is replaced (a
   * refused refresh leaves the token as it was): `OauthError` 429 with the wait. Spends nothing:
   * parallel calls present one token at once, and only the one that replaces it is counted.
   */
  check(grantId: string): void {
    const allowed = this.#limiter.peek(grantId)
    if (allowed.ok) return
    const wait = allowed.retryAfterSecs
    throw new OauthError(
      'invalid_request',
      `this grant refreshed its tokens ${REFRESHES_PER_HOUR} times in the last hour; retry in ${wait} s with the same refresh token`,
      429,
      wait,
    )
  }

  /** Count a refresh of grant `grantId` that replaced its token. */
  spend(grantId: string): void {
    this.#limiter.take(grantId)
  }
}
