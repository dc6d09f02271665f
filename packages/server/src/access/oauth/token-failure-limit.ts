/**
 * How many failed requests one client address may make to the token and revocation endpoints
 * (`/oauth/token`, `/oauth/revoke`). A made-up refresh token cost several database round trips,
 * one of them a transaction, and a made-up code two, before it was refused: a stranger sending
 * them in a loop loaded the database every tenant of the node waits on (SQLite answers one
 * query at a time). Only failures count: a request spends one before it is worked on (so that
 * requests sent at once cannot all pass one check) and a request that succeeds gives it back,
 * so a well-behaved client refreshing its tokens never spends the budget. A fault of burrowd's
 * own (the database down) gives it back too. Kept like the other rate limits (every node
 * together with several nodes); IPv6 clients are keyed by their /64 (`ClientAddresses.rateKey`).
 */
import { networkOfRateKey } from '../../http/client-addresses.js'
import type { RateLimiter } from '../../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../../http/rate-limits.js'
import { OauthError } from './oauth-error.js'

/** Failed token and revocation requests one address may make at once, and per minute. */
export const TOKEN_FAILURES_PER_MINUTE = 60

/** The per-address budget of failed token and revocation requests. */
export class TokenFailureLimit {
  readonly #limiter: RateLimiter

  constructor(limits: RateLimits = localRateLimits) {
    this.#limiter = limits.limiter('oauth.token-failures', {
      capacity: TOKEN_FAILURES_PER_MINUTE,
      perMs: 60_000,
      overflowGroup: networkOfRateKey,
    })
  }

  /**
   * Spend one of `address`'s failures before its request is worked on, or refuse the request
   * at once (`OauthError` 429 with the wait) when none are left: nothing is looked up.
   */
  begin(address: string): void {
    const allowed = this.#limiter.take(address)
    if (allowed.ok) return
    const wait = allowed.retryAfterSecs
    throw new OauthError(
      'invalid_request',
      `too many failed token requests from this address; retry in ${wait} s`,
      429,
      wait,
    )
  }

  /** The request `begin` spent for did not fail (or failed by burrowd's fault): give it back. */
  succeeded(address: string): void {
    this.#limiter.giveBack(address)
  }
}
