/**
 * Bounds how often one tunnel key connects. Valid keys spend nothing from the key-guessing limits
 * (key-guard.ts), yet every connection costs a key lookup, the tunnel's "seen" writes when it is
 * welcomed and when it leaves, and with several nodes a claim of the tunnel every node hears of:
 * a client reconnecting in a loop with its own key made that database and cluster work for every
 * tenant without bound. An honest `burrow up` waits at least a second between attempts and backs
 * off; a node's drain makes it reconnect once.
 */
import { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import type { KeyCheck } from './key-guard.js'

/** Connections one key may make at once, refilled over `CONNECTIONS_PER_KEY_MS`. */
export const CONNECTIONS_PER_KEY = 30
/** The refill period of `CONNECTIONS_PER_KEY`. */
export const CONNECTIONS_PER_KEY_MS = 60_000

/** Connections made per tunnel key, by the key's hash (never the key itself). */
export class ReconnectLimit {
  readonly #limiter: RateLimiter

  constructor(limits: RateLimits = localRateLimits, now?: () => number) {
    this.#limiter = limits.limiter('tunnel-connections.key', {
      capacity: CONNECTIONS_PER_KEY,
      perMs: CONNECTIONS_PER_KEY_MS,
      ...(now ? { now } : {}),
    })
  }

  /**
   * Whether the key hashed `keyHash` may be looked up now; nothing is spent (an unknown key keeps
   * no bucket here: the key guard counts those).
   */
  check(keyHash: string): KeyCheck {
    return this.#limiter.peek(keyHash)
  }

  /** The key was valid and is connecting: one connection is spent, or refused when none is left. */
  spend(keyHash: string): KeyCheck {
    return this.#limiter.take(keyHash)
  }
}
