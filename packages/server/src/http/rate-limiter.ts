/**
 * A token-bucket rate limiter keyed by a string (a client address): each key may spend
 * `capacity` requests at once, refilled evenly over `perMs`. In memory, per burrowd process, and
 * bounded: idle keys are forgotten, and when too many keys are live the oldest go first. Several
 * nodes share a limiter by telling each other what they spent (`onSpend`, `charge`: see
 * cluster/shared-rate-limits.ts).
 */

/** Options of `new RateLimiter`. */
export interface RateLimiterOptions {
  /** Requests a key may make in a burst, and per `perMs` on average. */
  readonly capacity: number
  /** The refill period in milliseconds. */
  readonly perMs: number
  /** Most keys remembered at once (default 10 000). */
  readonly maxKeys?: number
  /** Milliseconds clock (tests pass their own). */
  readonly now?: () => number
  /**
   * Told of each request spent here (`1`: a `take` allowed) and given back (`-1`: `giveBack`),
   * so that other nodes can `charge` it.
   */
  readonly onSpend?: (key: string, delta: 1 | -1) => void
}

/** The outcome of one `take`. */
export type RateDecision =
  { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number }

interface Bucket {
  tokens: number
  at: number
}

/** Allows or refuses requests per key. */
export class RateLimiter {
  readonly #capacity: number
  readonly #perMs: number
  readonly #maxKeys: number
  readonly #now: () => number
  readonly #buckets = new Map<string, Bucket>()
  readonly #onSpend: ((key: string, delta: 1 | -1) => void) | undefined

  constructor(options: RateLimiterOptions) {
    this.#capacity = options.capacity
    this.#perMs = options.perMs
    this.#maxKeys = options.maxKeys ?? 10_000
    this.#now = options.now ?? Date.now
    this.#onSpend = options.onSpend
  }

  /** Spend one request for `key`: ok, or refused with the seconds until the next one is allowed. */
  take(key: string): RateDecision {
    const bucket = this.#refilled(key)
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      this.#onSpend?.(key, 1)
      return { ok: true }
    }
    const waitMs = ((1 - bucket.tokens) * this.#perMs) / this.#capacity
    return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(waitMs / 1000)) }
  }

  /**
   * Apply what another node spent for `key` (`1`) or gave back (`-1`), without deciding anything.
   * A spend is taken whole, below empty if need be: two nodes that allowed the last request at
   * once leave the bucket in debt by one, paid back by its refill before it allows another. Cut
   * at empty, the spend was lost: a refill period later every node allowed a full bucket again
   * (N times the limit to requests sent to N nodes at once, each period), and that spend's
   * give-back, which is not cut, put a request back that was never taken (a refused request on
   * one node racing an allowed one on another spent nothing, however often repeated). A
   * give-back fills it at most to the capacity.
   */
  charge(key: string, delta: 1 | -1): void {
    if (delta === -1) {
      this.#fill(key)
      return
    }
    this.#refilled(key).tokens -= 1
  }

  /**
   * Whether `key` could spend one request now, without spending it: ok, or the seconds until it
   * could. For limits that only failures spend (the caller `take`s after a failure).
   */
  peek(key: string): RateDecision {
    const bucket = this.#buckets.get(key)
    if (!bucket) return { ok: true }
    const tokens = Math.min(
      this.#capacity,
      bucket.tokens + ((this.#now() - bucket.at) * this.#capacity) / this.#perMs,
    )
    if (tokens >= 1) return { ok: true }
    const waitMs = ((1 - tokens) * this.#perMs) / this.#capacity
    return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(waitMs / 1000)) }
  }

  /**
   * Give back one request `key` spent (a `take` whose work then failed), up to the capacity.
   * For limits that count only what succeeded but must be spent before the work, so that
   * requests at once cannot all pass one check.
   */
  giveBack(key: string): void {
    if (this.#fill(key)) this.#onSpend?.(key, -1)
  }

  /** Keys currently remembered (for tests). */
  get size(): number {
    return this.#buckets.size
  }

  /** `key`'s bucket, refilled to now and made the most recently used (created full). */
  #refilled(key: string): Bucket {
    const now = this.#now()
    const bucket = this.#buckets.get(key) ?? { tokens: this.#capacity, at: now }
    bucket.tokens = Math.min(
      this.#capacity,
      bucket.tokens + ((now - bucket.at) * this.#capacity) / this.#perMs,
    )
    bucket.at = now
    this.#buckets.delete(key)
    this.#buckets.set(key, bucket)
    if (this.#buckets.size > this.#maxKeys) this.#forget(now)
    return bucket
  }

  /** One request back into `key`'s bucket, if it has one; whether it had. */
  #fill(key: string): boolean {
    const bucket = this.#buckets.get(key)
    if (bucket) bucket.tokens = Math.min(this.#capacity, bucket.tokens + 1)
    return bucket !== undefined
  }

  /** Drop keys whose bucket has refilled, then the least recently used until under the cap. */
  #forget(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      // A bucket in debt (charge) takes longer than one period to fill.
      const idle = now - bucket.at
      const full = bucket.tokens + (idle * this.#capacity) / this.#perMs >= this.#capacity
      if (idle >= this.#perMs && full) this.#buckets.delete(key)
    }
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= this.#maxKeys) break
      this.#buckets.delete(key)
    }
  }
}
