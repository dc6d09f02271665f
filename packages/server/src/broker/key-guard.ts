/**
 * Throttles guessing of tunnel keys. Each key check reserves one attempt from its client's bucket
 * and from one bucket for the whole node before the key is looked up, so guesses sent all at once
 * cannot outrun the limit while lookups are pending; once either bucket is empty, upgrades are
 * answered 429 before any lookup, until it refills. A valid key (or a lookup that failed on our
 * side) gives its attempt back, so a client that knows its key is only held back while its
 * address (or the whole node) is under attack, and then for at most the refill time. Refusals
 * are logged in aggregate, one line a minute, not one line each.
 */
import type { Logger } from '@burrow/protocol'
import { RateLimiter } from '../http/rate-limiter.js'

/** Failed checks one client address may make at once, refilled over a minute. */
export const KEY_FAILURES_PER_ADDRESS = 10
/** Failed checks the whole node allows per second (a burst of ten seconds' worth). */
export const KEY_FAILURES_PER_SECOND = 20

/** Options of `new KeyGuard`. */
export interface KeyGuardOptions {
  readonly log: Logger
  readonly now?: () => number
  /** How often the aggregate line is logged, in milliseconds (default a minute). */
  readonly reportMs?: number
}

/** The outcome of `check`: go ahead, or refuse with the seconds to wait. */
export type KeyCheck =
  { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number }

/** Per-address and node-wide limits on failed tunnel-key checks. */
export class KeyGuard {
  readonly #perAddress: RateLimiter
  readonly #node: RateLimiter
  readonly #log: Logger
  readonly #now: () => number
  readonly #reportMs: number
  #failed = 0
  #throttled = 0
  readonly #addresses = new Set<string>()
  #since: number

  constructor(opts: KeyGuardOptions) {
    const now = opts.now ?? Date.now
    this.#perAddress = new RateLimiter({
      capacity: KEY_FAILURES_PER_ADDRESS,
      perMs: 60_000,
      now,
    })
    this.#node = new RateLimiter({
      capacity: KEY_FAILURES_PER_SECOND * 10,
      perMs: 10_000,
      now,
    })
    this.#log = opts.log
    this.#now = now
    this.#reportMs = opts.reportMs ?? 60_000
    this.#since = now()
  }

  /**
   * May a key from `address` be checked now? Reserves one attempt: tell `passed` or `failed`
   * once the key is looked up. A refusal is counted for the aggregate log.
   */
  check(address: string): KeyCheck {
    const mine = this.#perAddress.take(address)
    const node = mine.ok ? this.#node.take('node') : mine
    if (node.ok) return node
    if (mine.ok) this.#perAddress.refund(address)
    this.#throttled++
    if (this.#addresses.size < 10_000) this.#addresses.add(address)
    this.#report()
    return node
  }

  /** The key from `address` was valid, or could not be checked: its attempt is given back. */
  passed(address: string): void {
    this.#perAddress.refund(address)
    this.#node.refund('node')
  }

  /** A key from `address` was checked and is unknown: its attempt stays spent. */
  failed(address: string): void {
    this.#failed++
    if (this.#addresses.size < 10_000) this.#addresses.add(address)
    this.#report()
  }

  #report(): void {
    const now = this.#now()
    if (now - this.#since < this.#reportMs) return
    const secs = Math.round((now - this.#since) / 1000)
    if (this.#failed + this.#throttled > 0) {
      this.#log.info(
        `broker: in the last ${secs}s, ${this.#failed} tunnel connections had unknown keys and ` +
          `${this.#throttled} more were throttled (429) before their keys were checked, ` +
          `from ${this.#addresses.size} address${this.#addresses.size === 1 ? '' : 'es'}`,
      )
    }
    this.#failed = 0
    this.#throttled = 0
    this.#addresses.clear()
    this.#since = now
  }
}
