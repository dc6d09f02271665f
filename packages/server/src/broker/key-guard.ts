/**
 * Throttles guessing of tunnel keys. Each failed key check spends from its client's bucket and
 * from one bucket for the whole node. Once a client's bucket is empty, its upgrades are answered
 * 429 before any key is looked up, until it refills. The node's bucket is never asked before a
 * lookup: while it is empty (guesses spread over many addresses), keys are still looked up, a
 * valid one connects, and an unknown one is answered 429 instead of 401 (`failed` says which).
 * So an attacker who keeps the node's bucket empty cannot keep the node's tunnels offline; keys
 * are 256-bit random values, so the bucket is about cost and logs, not odds, and the cost of a
 * lookup (one indexed query) is bounded by how many may run at once, whatever the bucket holds:
 * `KEY_CHECKS_PENDING_PER_ADDRESS` per address, `KEY_CHECKS_PENDING_PER_NODE` per node. Guesses
 * sent all at once are checked a few dozen at a time, and the first failures empty the bucket
 * for the rest. Valid keys spend nothing, so a client that knows its key is only held back
 * while its own address is under attack, and then for at most the refill time; many tunnels
 * reconnecting at once from one address (a drain, a NAT) pass. Refusals are logged in
 * aggregate, one line a minute, not one line each.
 */
import type { Logger } from '@burrow/protocol'
import { networkOfRateKey } from '../http/client-addresses.js'
import { RateLimiter } from '../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'

/** Failed checks one client address may make at once, refilled over a minute. */
export const KEY_FAILURES_PER_ADDRESS = 10
/** Failed checks the whole node allows per second (a burst of ten seconds' worth). */
export const KEY_FAILURES_PER_SECOND = 20
/** Key lookups one address may have running at once. */
export const KEY_CHECKS_PENDING_PER_ADDRESS = 50
/** Key lookups the node may have running at once. */
export const KEY_CHECKS_PENDING_PER_NODE = 500

/** Options of `new KeyGuard`. */
export interface KeyGuardOptions {
  readonly log: Logger
  readonly now?: () => number
  /**
   * Where the per-address limit is kept (default: this process's own); the node-wide one is
   * always the node's own.
   */
  readonly limits?: RateLimits
  /** How often the aggregate line is logged, in milliseconds (default a minute). */
  readonly reportMs?: number
}

/** The outcome of `check`: go ahead, or refuse with the seconds to wait. */
export type KeyCheck =
  { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number }

/**
 * How to refuse an unknown key: 401 while the node's bucket has room, 429 with the seconds
 * until it has (guesses from many addresses spent it).
 */
export type KeyFailure =
  { readonly throttled: false } | { readonly throttled: true; readonly retryAfterSecs: number }

/** Per-address and node-wide limits on failed tunnel-key checks. */
export class KeyGuard {
  readonly #perAddress: RateLimiter
  readonly #node: RateLimiter
  readonly #log: Logger
  readonly #now: () => number
  readonly #reportMs: number
  /** Lookups running, per address and in all. */
  readonly #pending = new Map<string, number>()
  #pendingAll = 0
  #failed = 0
  #throttled = 0
  readonly #addresses = new Set<string>()
  #since: number

  constructor(opts: KeyGuardOptions) {
    const now = opts.now ?? Date.now
    this.#perAddress = (opts.limits ?? localRateLimits).limiter('key-checks.address', {
      capacity: KEY_FAILURES_PER_ADDRESS,
      perMs: 60_000,
      now,
      overflowGroup: networkOfRateKey,
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
   * May a key from `address` be looked up now? When yes, tell `passed` or `failed` once it was.
   * A refusal is counted for the aggregate log.
   */
  check(address: string): KeyCheck {
    const pending = this.#pending.get(address) ?? 0
    const mine = this.#perAddress.peek(address)
    const crowded =
      pending >= KEY_CHECKS_PENDING_PER_ADDRESS || this.#pendingAll >= KEY_CHECKS_PENDING_PER_NODE
    if (mine.ok && !crowded) {
      this.#pending.set(address, pending + 1)
      this.#pendingAll++
      return mine
    }
    this.#throttled++
    if (this.#addresses.size < 10_000) this.#addresses.add(address)
    this.#report()
    return mine.ok ? { ok: false, retryAfterSecs: 1 } : mine
  }

  /** The key from `address` was valid, or could not be checked: nothing is spent. */
  passed(address: string): void {
    this.#settle(address)
  }

  /**
   * A key from `address` was checked and is unknown: one failure is spent from the address's
   * bucket and the node's. Says whether the node's was already empty.
   */
  failed(address: string): KeyFailure {
    this.#settle(address)
    this.#perAddress.take(address)
    const node = this.#node.take('node')
    this.#failed++
    if (this.#addresses.size < 10_000) this.#addresses.add(address)
    this.#report()
    return node.ok ? { throttled: false } : { throttled: true, retryAfterSecs: node.retryAfterSecs }
  }

  #settle(address: string): void {
    const pending = (this.#pending.get(address) ?? 1) - 1
    if (pending > 0) this.#pending.set(address, pending)
    else this.#pending.delete(address)
    this.#pendingAll = Math.max(0, this.#pendingAll - 1)
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
