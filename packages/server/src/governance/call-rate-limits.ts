/**
 * Exact rate limits on calls, for the tunnels' policies: token buckets of `limit` tokens refilled
 * evenly over `perSeconds`, so exactly `limit` calls pass in a burst and `limit` per period on
 * average. A request takes one token from every bucket its calls match, or none (all or
 * nothing). In process on one node (`MemoryCallRateLimits`), in Redis for several
 * (`RedisCallRateLimits`, one Lua script, atomic across nodes).
 *
 * A bucket belongs to a rule's place in its policy (and, for rules per agent, to an agent), not
 * to the rule's text: it remembers the shape of the rule that filled it, and a rule rewritten
 * into another shape starts from a full bucket in the same place. So rewriting a policy again and
 * again leaves no buckets behind, and a bucket idle for its period (full again) is forgotten. The
 * bucket also keeps the state of the shape before, so that while nodes apply two versions of a
 * policy (for the moment a change takes to reach them all), neither version's count restarts.
 */
import type { Redis } from 'ioredis'
import { RedisScript } from '../quota/redis-script.js'

/** Tokens one request wants from one bucket. */
export interface RateDemand {
  /** The bucket: tunnel, the rule's place in the policy, and the agent for rules per agent. */
  readonly key: string
  /** The rule as written (what it counts, its limit and period): another shape starts full. */
  readonly shape: string
  readonly n: number
  readonly limit: number
  readonly perSeconds: number
  /** What the bucket counts, for messages: `calls to search`, `requests for any method`. */
  readonly counts: string
}

/** Allowed, or refused by demand `index` with the seconds until it would fit. */
export type RateOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly index: number; readonly retryAfterSecs: number }

/** Where the buckets live. */
export interface CallRateLimits {
  /** Take every demand's tokens, or none and say which bucket refused. */
  admit(demands: readonly RateDemand[]): Promise<RateOutcome>
  close(): Promise<void>
}

interface Bucket {
  tokens: number
  at: number
  shape: string
  periodMs: number
  /** The state of the shape before (nodes may apply two versions of a policy for a moment). */
  previous: { readonly shape: string; readonly tokens: number; readonly at: number } | null
}

/** Buckets in this process. Idle full buckets are forgotten. */
export class MemoryCallRateLimits implements CallRateLimits {
  readonly #buckets = new Map<string, Bucket>()
  readonly #now: () => number
  #admits = 0

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  admit(demands: readonly RateDemand[]): Promise<RateOutcome> {
    const now = this.#now()
    const buckets = demands.map((d) => this.#refilled(d, now))
    for (let i = 0; i < demands.length; i++) {
      const d = demands[i]!
      const b = buckets[i]!
      if (b.tokens < d.n) {
        const waitMs = ((d.n - b.tokens) * d.perSeconds * 1000) / d.limit
        return Promise.resolve({
          ok: false,
          index: i,
          retryAfterSecs: Math.max(1, Math.ceil(waitMs / 1000)),
        })
      }
    }
    demands.forEach((d, i) => (buckets[i]!.tokens -= d.n))
    if (++this.#admits % 1024 === 0) this.#forget(now, demands)
    return Promise.resolve({ ok: true })
  }

  close(): Promise<void> {
    this.#buckets.clear()
    return Promise.resolve()
  }

  #refilled(d: RateDemand, now: number): Bucket {
    let b = this.#buckets.get(d.key)
    if (!b) {
      b = {
        tokens: d.limit,
        at: now,
        shape: d.shape,
        periodMs: d.perSeconds * 1000,
        previous: null,
      }
      this.#buckets.set(d.key, b)
      return b
    }
    if (b.shape !== d.shape) {
      const back = b.previous?.shape === d.shape ? b.previous : null
      b.previous = { shape: b.shape, tokens: b.tokens, at: b.at }
      b.shape = d.shape
      b.tokens = back?.tokens ?? d.limit
      b.at = back?.at ?? now
      b.periodMs = Math.max(b.periodMs, d.perSeconds * 1000)
    }
    b.tokens = Math.min(d.limit, b.tokens + ((now - b.at) * d.limit) / (d.perSeconds * 1000))
    b.at = now
    return b
  }

  /** Drop buckets untouched for their whole period: they are full, as a new one would be. */
  #forget(now: number, keep: readonly RateDemand[]): void {
    const kept = new Set(keep.map((d) => d.key))
    for (const [key, b] of this.#buckets) {
      if (!kept.has(key) && now - b.at >= b.periodMs) this.#buckets.delete(key)
    }
  }

  /** Buckets held (tests). */
  get size(): number {
    return this.#buckets.size
  }
}

/**
 * KEYS: one hash per bucket {t: tokens, at: ms, s: shape}, and the shape before it {t2, at2, s2}
 * (while nodes apply two versions of a policy, each keeps its own count). ARGV: for demand i, ARGV[4i-3] n,
 * ARGV[4i-2] limit, ARGV[4i-1] period in ms, ARGV[4i] the rule's shape (another shape starts
 * full). Time is Redis's own, the same for every node. Returns {1} or {0, index, wait ms}.
 */
const TAKE = new RedisScript(`
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local tokens = {}
for i = 1, #KEYS do
  local n = tonumber(ARGV[i * 4 - 3])
  local limit = tonumber(ARGV[i * 4 - 2])
  local period = tonumber(ARGV[i * 4 - 1])
  local state = redis.call('HMGET', KEYS[i], 't', 'at', 's', 't2', 'at2', 's2')
  local t = tonumber(state[1])
  local at = tonumber(state[2])
  if state[3] ~= ARGV[i * 4] and state[6] == ARGV[i * 4] then
    t = tonumber(state[4])
    at = tonumber(state[5])
  elseif state[3] ~= ARGV[i * 4] then
    t = nil
  end
  if t == nil then
    t = limit
  else
    t = math.min(limit, t + (ms - at) * limit / period)
  end
  if t < n then
    return {0, i - 1, math.ceil((n - t) * period / limit)}
  end
  tokens[i] = t
end
for i = 1, #KEYS do
  local n = tonumber(ARGV[i * 4 - 3])
  local period = tonumber(ARGV[i * 4 - 1])
  local was = redis.call('HMGET', KEYS[i], 't', 'at', 's')
  if was[3] and was[3] ~= ARGV[i * 4] then
    redis.call('HSET', KEYS[i], 't2', was[1], 'at2', was[2], 's2', was[3])
  end
  redis.call('HSET', KEYS[i], 't', tostring(tokens[i] - n), 'at', ms, 's', ARGV[i * 4])
  redis.call('PEXPIRE', KEYS[i], period * 2)
end
return {1}
`)

/** Buckets shared by every node through Redis. */
export class RedisCallRateLimits implements CallRateLimits {
  readonly #redis: Redis
  readonly #prefix: string

  constructor(redis: Redis, keyPrefix = '') {
    this.#redis = redis
    this.#prefix = keyPrefix
  }

  async admit(demands: readonly RateDemand[]): Promise<RateOutcome> {
    if (demands.length === 0) return { ok: true }
    const keys = demands.map((d) => `${this.#prefix}rl:${d.key}`)
    const args = demands.flatMap((d) => [d.n, d.limit, d.perSeconds * 1000, d.shape])
    const reply = (await TAKE.run(this.#redis, keys, args)) as number[]
    if (reply[0] === 1) return { ok: true }
    return {
      ok: false,
      index: Number(reply[1]),
      retryAfterSecs: Math.max(1, Math.ceil(Number(reply[2]) / 1000)),
    }
  }

  async close(): Promise<void> {
    // The connection belongs to whoever made it.
  }
}
