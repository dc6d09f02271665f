/**
 * How many requests one client address may make to the authorization endpoint
 * (`/oauth/authorize`). Each is read before anyone has signed in: the session cookie, the client
 * (its registration, or its metadata document, fetched within limits of its own), the resource's
 * tunnel or custom domain, the tunnel's access settings; a stranger asking in a loop made the
 * database every tenant of the node waits on do that without bound. The tunnel's owner, signed
 * in, gets the request back once known (the consent page shown to them, their answer with the
 * session's CSRF token): the limit is for everyone else, and an owner approving clients in a row
 * is bounded by the grants a tunnel may hold, as the dashboard's pages are by its session. Kept
 * like the other rate limits (every node together with several nodes); IPv6 clients are keyed
 * by their /64 (`ClientAddresses.rateKey`).
 */
import { networkOfRateKey } from '../../http/client-addresses.js'
import type { RateLimiter } from '../../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../../http/rate-limits.js'

/** Authorization requests one address may make at once, and per minute. */
export const AUTHORIZE_REQUESTS_PER_MINUTE = 60

/** The per-address budget of authorization requests. */
export class AuthorizeLimit {
  readonly #limiter: RateLimiter

  constructor(limits: RateLimits = localRateLimits) {
    this.#limiter = limits.limiter('oauth.authorize', {
      capacity: AUTHORIZE_REQUESTS_PER_MINUTE,
      perMs: 60_000,
      overflowGroup: networkOfRateKey,
    })
  }

  /**
   * Spend one of `address`'s requests before its request is read: null, or the seconds to wait
   * when none are left (the request is then refused and nothing is looked up).
   */
  take(address: string): number | null {
    const allowed = this.#limiter.take(address)
    return allowed.ok ? null : allowed.retryAfterSecs
  }

  /** The tunnel's signed-in owner asked (the consent page, or the answer): give it back. */
  fromOwner(address: string): void {
    this.#limiter.giveBack(address)
  }
}
