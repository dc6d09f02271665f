/**
 * A token-bucket rate limiter keyed by a string (a client address): each key may spend
 * `capacity` requests at once, refilled evenly over `perMs`. In memory, per burrowd process, and
 * bounded: at most `maxKeys` buckets, and a bucket is forgotten only once it has refilled (a
 * full bucket is the same as none). While every place holds a bucket not yet refilled, keys
 * without one of their own share an overflow bucket of the same size (one for all, or one per
 * `overflowGroup`), so a flood of new keys is throttled as a group and never gives a key back
 * what it spent (docs/decisions.md, "Rate-limit buckets under a flood of keys"). Several nodes
 * share a limiter by telling each other what they spent (`onSpend`, `charge`: see
 * cluster/shared-rate-limits.ts).
 */

/** Keys given a bucket of their own at once, unless `maxKeys` says otherwise. */
export const DEFAULT_MAX_KEYS = 50_000

/**
 * Buckets a key without one looks at for ones that have refilled and may be forgotten, when
 * every place is taken: a bounded cost per request, never a scan of all. Each look goes on where
 * the last stopped, round the buckets in the order they were made, so that every bucket is seen
 * in turn.
 */
const SWEEP = 8

/** Options of `new RateLimiter`. */
export interface RateLimiterOptions {
  /** Requests a key may make in a burst, and per `perMs` on average. */
  readonly capacity: number
  /** The refill period in milliseconds. */
  readonly perMs: number
  /** Most keys given a bucket of their own at once (default `DEFAULT_MAX_KEYS`). */
  readonly maxKeys?: number
  /** Milliseconds clock (tests pass their own). */
  readonly now?: () => number
  /**
   * Told of each request spent here (`1`: a `take` allowed) and given back (`-1`: `giveBack`),
   * so that other nodes can `charge` it.
   */
  readonly onSpend?: (key: string, delta: 1 | -1) => void
  /**
   * The group whose overflow bucket a key without a bucket of its own spends from, while every
   * place holds one not yet refilled (default: one for all keys). Limits per client address
   * group by network (`networkOfRateKey`), so that a flood from one network's many addresses
   * spends that network's overflow bucket, not every newcomer's. The groups' buckets are kept
   * as a limiter's (at most `maxKeys`, and one overflow bucket for groups without a place).
   */
  readonly overflowGroup?: (key: string) => string
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
  /** What keys without a bucket spend while every place holds one not yet refilled. */
  readonly #overflow: Bucket
  /** With `overflowGroup`: the groups' overflow buckets, kept by group, instead of `#overflow`. */
  readonly #groups: { readonly limiter: RateLimiter; readonly of: (key: string) => string } | null
  readonly #onSpend: ((key: string, delta: 1 | -1) => void) | undefined
  /** Where the look for refilled buckets goes on (a live iterator over `#buckets`). */
  #cursor: Iterator<[string, Bucket]> | null = null

  constructor(options: RateLimiterOptions) {
    this.#capacity = options.capacity
    this.#perMs = options.perMs
    this.#maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS
    this.#now = options.now ?? Date.now
    this.#onSpend = options.onSpend
    this.#overflow = { tokens: this.#capacity, at: this.#now() }
    const { capacity, perMs, overflowGroup } = options
    this.#groups = overflowGroup
      ? {
          limiter: new RateLimiter({ capacity, perMs, maxKeys: this.#maxKeys, now: this.#now }),
          of: overflowGroup,
        }
      : null
  }

  /** Spend one request for `key`: ok, or refused with the seconds until the next one is allowed. */
  take(key: string): RateDecision {
    const now = this.#now()
    const own = this.#own(key, now)
    if (!own && this.#groups) {
      const decision = this.#groups.limiter.take(this.#groups.of(key))
      if (decision.ok) this.#onSpend?.(key, 1)
      return decision
    }
    const bucket = this.#refilled(own ?? this.#overflow, now)
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      this.#onSpend?.(key, 1)
      return { ok: true }
    }
    return this.#refusal(bucket.tokens)
  }

  /**
   * Apply what another node spent for `key` (`1`) or gave back (`-1`), without deciding anything.
   * A spend is taken whole, below empty if need be: two nodes that allowed the last request at
   * once leave the bucket in debt by one, paid back by its refill before it allows another. Cut
   * at empty, the spend was lost: a refill period later every node allowed a full bucket again
   * (N times the limit to requests sent to N nodes at once, each period), and that spend's
   * give-back, which is not cut, put a request back that was never taken (a refused request on
   * one node racing an allowed one on another spent nothing, however often repeated). A
   * give-back fills it at most to the capacity. A spend for a key this node has no bucket for,
   * while every place holds one not yet refilled, is not counted here: the overflow bucket is
   * what this node's own keys without a place spend, and the others' spends would empty it for
   * every newcomer here (the key's bucket on the node that allowed it keeps the count).
   */
  charge(key: string, delta: 1 | -1): void {
    if (delta === -1) {
      const bucket = this.#buckets.get(key)
      if (bucket) this.#fill(bucket)
      return
    }
    const now = this.#now()
    const bucket = this.#own(key, now)
    if (bucket) this.#refilled(bucket, now).tokens -= 1
  }

  /**
   * Whether `key` could spend one request now, without spending it: ok, or the seconds until it
   * could. For limits that only failures spend (the caller `take`s after a failure).
   */
  peek(key: string): RateDecision {
    const now = this.#now()
    let bucket = this.#buckets.get(key)
    if (!bucket) {
      if (this.#room(now)) return { ok: true }
      if (this.#groups) return this.#groups.limiter.peek(this.#groups.of(key))
      bucket = this.#overflow
    }
    const tokens = this.#tokensAt(bucket, now)
    return tokens >= 1 ? { ok: true } : this.#refusal(tokens)
  }

  /**
   * Give back one request `key` spent (a `take` whose work then failed), up to the capacity.
   * For limits that count only what succeeded but must be spent before the work, so that
   * requests at once cannot all pass one check. A key without a bucket while every place is
   * taken gives back to its overflow bucket, which its `take` spent.
   */
  giveBack(key: string): void {
    const bucket = this.#buckets.get(key)
    if (bucket) this.#fill(bucket)
    else if (this.#buckets.size < this.#maxKeys) return
    else if (this.#groups) this.#groups.limiter.giveBack(this.#groups.of(key))
    else this.#fill(this.#overflow)
    this.#onSpend?.(key, -1)
  }

  /** Keys with a bucket of their own (for tests). */
  get size(): number {
    return this.#buckets.size
  }

  /**
   * `key`'s own bucket, or one made full when there is a place for it; undefined when every place
   * holds a bucket not yet refilled. A bucket is not moved on use: only refilled ones are
   * forgotten, so the order does not matter, and moving it would rehash the table now and then,
   * which the sweep's iterator would keep alive behind it.
   */
  #own(key: string, now: number): Bucket | undefined {
    const bucket = this.#buckets.get(key)
    if (bucket) return bucket
    if (!this.#room(now)) return undefined
    const made = { tokens: this.#capacity, at: now }
    this.#buckets.set(key, made)
    return made
  }

  /**
   * Whether a new key can have a bucket: there is a place, or one of the next `SWEEP` buckets
   * looked at has refilled and is forgotten to make one.
   */
  #room(now: number): boolean {
    if (this.#buckets.size < this.#maxKeys) return true
    for (let looked = 0; looked < SWEEP; looked++) {
      let next = this.#cursor?.next()
      if (!next || next.done === true) {
        this.#cursor = this.#buckets.entries()
        next = this.#cursor.next()
        if (next.done === true) break
      }
      const [key, bucket] = next.value
      if (this.#tokensAt(bucket, now) >= this.#capacity) this.#buckets.delete(key)
    }
    return this.#buckets.size < this.#maxKeys
  }

  /** `bucket` refilled to `now`. */
  #refilled(bucket: Bucket, now: number): Bucket {
    bucket.tokens = this.#tokensAt(bucket, now)
    bucket.at = now
    return bucket
  }

  /** The tokens `bucket` holds at `now` (a bucket in debt takes longer than a period to fill). */
  #tokensAt(bucket: Bucket, now: number): number {
    const refill = (Math.max(0, now - bucket.at) * this.#capacity) / this.#perMs
    return Math.min(this.#capacity, bucket.tokens + refill)
  }

  /** One request back into `bucket`, up to the capacity. */
  #fill(bucket: Bucket): void {
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + 1)
  }

  /** A refusal of a bucket holding `tokens`, with the seconds until it holds one. */
  #refusal(tokens: number): RateDecision {
    const waitMs = ((1 - tokens) * this.#perMs) / this.#capacity
    return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(waitMs / 1000)) }
  }
}
