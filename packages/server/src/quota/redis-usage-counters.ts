/**
 * Usage counters shared by several burrowd nodes through Redis. One key per tunnel, month and
 * metric, `q:<tunnel>:<YYYY-MM>:<metric>` (after an optional prefix); a Lua script reads the
 * keys a request needs, refuses without incrementing anything when one of them would pass its
 * limit, else INCRBYs each and sets it to expire at the start of next month plus a grace period. Redis runs a script with everything
 * else blocked, so concurrent calls from every node are exact. Durability is Redis's own (AOF
 * or RDB); the periodic snapshot copies the counters to the database.
 */

import type { Redis, RedisOptions } from 'ioredis'
import { openRedis } from '../store/open-redis.js'
import { checkUsageInput } from './check-usage-input.js'
import { CountingUsageCounters } from './counting-usage-counters.js'
import { nextResetOf, periodOf } from './period.js'
import { RedisScript } from './redis-script.js'
import type { Period } from './period.js'
import { bySnapshotOrder, USAGE_METRICS } from './usage-counters.js'
import type {
  ConsumeAllResult,
  ConsumeResult,
  UsageDemand,
  UsageMetric,
  UsageSnapshotEntry,
} from './usage-counters.js'
import { crossesWarning } from './usage-warning.js'

/** Options of `RedisUsageCounters`. */
export interface RedisUsageCountersOptions {
  /** Prepended to every key, e.g. `burrow:` on a shared Redis. Default none. */
  readonly keyPrefix?: string
  /** How long a month's keys outlive it, for the last snapshot and support. Default 7 days. */
  readonly expiryGraceSeconds?: number
  /** The time used when a call passes no `now` (tests pass a fixed one). */
  readonly clock?: () => Date
  /**
   * A tunnel's counts of a month as last copied to the database (the meter snapshot), for a month
   * Redis holds none of. Without it such a month starts again from what Redis has.
   */
  readonly seed?: UsageSeed
}

/** A tunnel's counts of a month from outside Redis, by metric (missing metrics are 0). */
export type UsageSeed = (
  tunnelId: string,
  period: Period,
) => Promise<ReadonlyMap<UsageMetric, number>>

/**
 * KEYS: one counter per demand, then the month's marker. ARGV[1]: expiry (unix seconds); then for demand i
 * ARGV[3i-1] n, ARGV[3i] limit, ARGV[3i+1] check (`fits`, `below` or `none`, as
 * `demandRefused`). Counts every demand or none. Returns {allowed 1|0, index of the refusing
 * demand or 0, then before and after of each demand}; or {2}, counting nothing, when the
 * tunnel's month was not seeded since Redis lost it, or one of its counters was lost since (a
 * seed creates every counter, so a missing one was evicted, not unused).
 */
const CHECK_AND_INCREMENT = new RedisScript(`
if redis.call('EXISTS', unpack(KEYS)) < #KEYS then return {2} end
local befores = {}
for i = 1, #KEYS - 1 do
  befores[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
end
for i = 1, #KEYS - 1 do
  local n = tonumber(ARGV[i * 3 - 1])
  local limit = tonumber(ARGV[i * 3])
  local check = ARGV[i * 3 + 1]
  if (check == 'fits' and befores[i] + n > limit) or (check == 'below' and befores[i] >= limit) then
    local reply = {0, i}
    for j = 1, #KEYS - 1 do
      reply[#reply + 1] = befores[j]
      reply[#reply + 1] = befores[j]
    end
    return reply
  end
end
local reply = {1, 0}
for i = 1, #KEYS - 1 do
  local n = tonumber(ARGV[i * 3 - 1])
  local after = befores[i]
  if n > 0 then
    after = redis.call('INCRBY', KEYS[i], n)
    redis.call('EXPIREAT', KEYS[i], ARGV[1])
  end
  reply[#reply + 1] = befores[i]
  reply[#reply + 1] = after
end
return reply
`)

/**
 * KEYS: the month's counter of every metric, then its marker. ARGV[1]: expiry; ARGV[i + 1]: the
 * seed of metric i. Creates each missing counter at its seed, and marks the month. An unmarked
 * month's existing counters are raised to their seed; a marked one's are left alone: another
 * seed came first, and what was counted or set since (an operator lowering it) stands.
 */
const SEED = new RedisScript(`
local marked = redis.call('EXISTS', KEYS[#KEYS]) == 1
for i = 1, #KEYS - 1 do
  local current = redis.call('GET', KEYS[i])
  if not current or (not marked and tonumber(ARGV[i + 1]) > tonumber(current)) then
    redis.call('SET', KEYS[i], ARGV[i + 1])
    redis.call('EXPIREAT', KEYS[i], ARGV[1])
  end
end
redis.call('SET', KEYS[#KEYS], '1')
redis.call('EXPIREAT', KEYS[#KEYS], ARGV[1])
return 1
`)

const DEFAULT_GRACE_SECONDS = 7 * 24 * 60 * 60
/** Keys per SCAN step and per MGET in `snapshot`. */
const BATCH = 500

/** Exact usage counters in Redis, shared by every node that uses the same Redis and prefix. */
export class RedisUsageCounters extends CountingUsageCounters {
  readonly #redis: Redis
  #ownsConnection: boolean
  readonly #prefix: string
  readonly #graceSeconds: number
  readonly #clock: () => Date
  readonly #seed: UsageSeed | null
  /** Seedings under way, by marker key: calls that find a month unseeded wait for one. */
  readonly #seeding = new Map<string, Promise<void>>()
  #closed = false

  /** Counters on an existing connection, which `close()` leaves open. */
  constructor(redis: Redis, options: RedisUsageCountersOptions = {}) {
    super()
    this.#redis = redis
    this.#ownsConnection = false
    this.#prefix = options.keyPrefix ?? ''
    this.#graceSeconds = options.expiryGraceSeconds ?? DEFAULT_GRACE_SECONDS
    this.#clock = options.clock ?? (() => new Date())
    this.#seed = options.seed ?? null
  }

  /**
   * Counters on a new connection to `url` (burrowd's options, `openRedis`, with `options.redis`
   * on top), which `close()` ends.
   */
  static open(
    url: string,
    options: RedisUsageCountersOptions & { readonly redis?: RedisOptions } = {},
  ): RedisUsageCounters {
    const counters = new RedisUsageCounters(openRedis(url, options.redis), options)
    counters.#ownsConnection = true
    return counters
  }

  protected now(): Date {
    return this.#clock()
  }

  protected async decide(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
  ): Promise<ConsumeAllResult> {
    // The script that decides also stores: the decision is in Redis once it is known.
    return this.#count(tunnelId, demands, now)
  }

  async get(tunnelId: string, metric: UsageMetric, now: Date = this.#clock()): Promise<number> {
    checkUsageInput(tunnelId, metric)
    this.#assertOpen()
    const period = periodOf(now)
    const key = this.#key(tunnelId, period, metric)
    const [value, marker] = await this.#redis.mget(key, this.#marker(tunnelId, period))
    if (marker !== null && marker !== undefined && value !== null && value !== undefined) {
      return toCount(value)
    }
    await this.#seedMonth(tunnelId, period, now)
    return toCount(await this.#redis.get(key))
  }

  async set(
    tunnelId: string,
    metric: UsageMetric,
    value: number,
    now: Date = this.#clock(),
  ): Promise<void> {
    checkUsageInput(tunnelId, metric, { value })
    this.#assertOpen()
    const period = periodOf(now)
    // The other metrics of a month Redis lost come back first: the marker covers them all.
    if ((await this.#redis.exists(this.#marker(tunnelId, period))) === 0) {
      await this.#seedMonth(tunnelId, period, now)
    }
    const key = this.#key(tunnelId, period, metric)
    const replies = await this.#redis
      .multi()
      .set(key, String(value))
      .expireat(key, this.#expiresAt(now))
      .exec()
    const failure = replies?.find(([error]) => error !== null)?.[0]
    if (replies === null || failure) {
      throw new Error(`usage counters: setting ${key} failed`, { cause: failure ?? undefined })
    }
  }

  async snapshot(now: Date = this.#clock()): Promise<UsageSnapshotEntry[]> {
    this.#assertOpen()
    const period = periodOf(now)
    const keys = new Set<string>()
    const pattern = `${escapeGlob(this.#prefix)}q:*:${period}:*`
    let cursor = '0'
    do {
      const [next, found] = await this.#redis.scan(cursor, 'MATCH', pattern, 'COUNT', BATCH)
      cursor = next
      for (const key of found) keys.add(key)
    } while (cursor !== '0')

    const entries: UsageSnapshotEntry[] = []
    const all = [...keys]
    for (let start = 0; start < all.length; start += BATCH) {
      const chunk = all.slice(start, start + BATCH)
      const values = await this.#redis.mget(chunk)
      chunk.forEach((key, i) => {
        const parsed = this.#parseKey(key)
        const value = values[i]
        // A key may have been deleted between SCAN and MGET.
        if (parsed !== undefined && value !== null && value !== undefined) {
          entries.push({ ...parsed, period, value: toCount(value) })
        }
      })
    }
    return entries.sort(bySnapshotOrder)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#ownsConnection) await this.#redis.quit()
  }

  async #count(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
  ): Promise<ConsumeAllResult> {
    this.#assertOpen()
    const period = periodOf(now)
    const keys = [
      ...demands.map((d) => this.#key(tunnelId, period, d.metric)),
      this.#marker(tunnelId, period),
    ]
    const args = [this.#expiresAt(now), ...demands.flatMap((d) => [d.n, d.limit, d.check])]
    let reply = await CHECK_AND_INCREMENT.run(this.#redis, keys, args)
    if (isUnseeded(reply)) {
      await this.#seedMonth(tunnelId, period, now)
      reply = await CHECK_AND_INCREMENT.run(this.#redis, keys, args)
    }
    const { allowed, refused, counts } = parseReply(reply, demands.length, keys.join(' '))
    const resetsAt = nextResetOf(now)
    const results = demands.map((d, i): ConsumeResult => {
      const [before, after] = counts[i] ?? [0, 0]
      return {
        allowed,
        value: after,
        limit: d.limit,
        crossed80: allowed && crossesWarning(before, after, d.limit),
        period,
        resetsAt,
      }
    })
    return { allowed, refusedBy: allowed ? null : (demands[refused - 1]?.metric ?? null), results }
  }

  /**
   * Bring `tunnelId`'s counters of `period` up from the seed (those Redis lost, or all of an
   * unmarked month) and mark the month, once however many calls find it unseeded at once.
   */
  async #seedMonth(tunnelId: string, period: Period, now: Date): Promise<void> {
    const marker = this.#marker(tunnelId, period)
    let seeding = this.#seeding.get(marker)
    if (seeding === undefined) {
      seeding = (async () => {
        const seed = this.#seed
          ? await this.#seed(tunnelId, period)
          : new Map<UsageMetric, number>()
        const keys = [...USAGE_METRICS.map((m) => this.#key(tunnelId, period, m)), marker]
        const args = [this.#expiresAt(now), ...USAGE_METRICS.map((m) => seed.get(m) ?? 0)]
        await SEED.run(this.#redis, keys, args)
      })().finally(() => this.#seeding.delete(marker))
      this.#seeding.set(marker, seeding)
    }
    await seeding
  }

  #key(tunnelId: string, period: Period, metric: UsageMetric): string {
    return `${this.#prefix}q:${tunnelId}:${period}:${metric}`
  }

  /** The key saying that `tunnelId`'s month `period` is whole in Redis (seeded). */
  #marker(tunnelId: string, period: Period): string {
    return `${this.#prefix}q:${tunnelId}:${period}:seeded`
  }

  /** Unix seconds at which a key counted at `now` expires. */
  #expiresAt(now: Date): number {
    return Math.floor(nextResetOf(now).getTime() / 1000) + this.#graceSeconds
  }

  #parseKey(key: string): { tunnelId: string; metric: UsageMetric } | undefined {
    const [q, tunnelId, , name] = key.slice(this.#prefix.length).split(':')
    const metric = USAGE_METRICS.find((known) => known === name)
    if (q !== 'q' || tunnelId === undefined || metric === undefined) return undefined
    return { tunnelId, metric }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('usage counters are closed')
  }
}

function parseReply(
  reply: unknown,
  demands: number,
  keys: string,
): { allowed: boolean; refused: number; counts: [number, number][] } {
  if (
    Array.isArray(reply) &&
    reply.length === 2 + 2 * demands &&
    reply.every((v) => typeof v === 'number')
  ) {
    const [allowed, refused, ...values] = reply
    const counts: [number, number][] = []
    for (let i = 0; i < values.length; i += 2) counts.push([values[i] ?? 0, values[i + 1] ?? 0])
    return { allowed: allowed === 1, refused: refused ?? 0, counts }
  }
  throw new Error(`usage counters: unexpected reply for ${keys}: ${JSON.stringify(reply)}`)
}

/** Whether the counting script said the month must be seeded first. */
function isUnseeded(reply: unknown): boolean {
  return Array.isArray(reply) && reply.length === 1 && reply[0] === 2
}

function toCount(value: string | null): number {
  return value === null ? 0 : Number(value)
}

/** `text` as a SCAN MATCH pattern that matches only itself. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}
