/**
 * Live usage counters: the exact per-tunnel, per-month counts of tool calls and bytes that the
 * monthly quotas are enforced against (docs/decisions.md#quotas-and-sessions). One interface, two
 * implementations side by side: `MemoryUsageCounters` (one node: counted in process, written to the
 * database in batches) and `RedisUsageCounters` (several nodes: an atomic Lua check-and-increment in
 * Redis). The billing meters read a periodic `snapshot()` of these counters, never the counters
 * themselves.
 */

import type { Period } from './period.js'

/** What is counted: forwarded `tools/call` requests, and bytes crossing the edge both ways. */
export type UsageMetric = 'tool_calls' | 'bandwidth_bytes'

/** Every metric, in a stable order. */
export const USAGE_METRICS: readonly UsageMetric[] = ['tool_calls', 'bandwidth_bytes']

/** The outcome of `consume` or `add`. */
export interface ConsumeResult {
  /** Whether `n` was counted. `add` always counts; `consume` refuses what would pass the limit. */
  readonly allowed: boolean
  /** The counter after the increment, or its current value when refused. */
  readonly value: number
  /** The limit the call was checked (or, for `add`, the warning computed) against. */
  readonly limit: number
  /**
   * True for exactly the increment that took the counter from below 80% of `limit` to 80% or
   * more: the moment to emit `quota.warning` (docs/webhooks.md#quotawarning). Never true when
   * refused.
   */
  readonly crossed80: boolean
  /** The period counted in (`YYYY-MM`, UTC). */
  readonly period: Period
  /** When the counter resets: 00:00 UTC on the 1st of the next month. */
  readonly resetsAt: Date
}

/**
 * How a demand of `consumeAll` is checked against its limit:
 * - `fits`: refused unless the counter plus `n` stays within the limit (tool calls: exact);
 * - `below`: refused once the counter is at or over the limit, else `n` counts whole even if it
 *   passes the limit (bytes, whose total is only known as they flow);
 * - `none`: never refused (`add`).
 */
export type UsageCheck = 'fits' | 'below' | 'none'

/** One amount to count in `consumeAll`. */
export interface UsageDemand {
  readonly metric: UsageMetric
  readonly n: number
  readonly limit: number
  readonly check: UsageCheck
}

/** The outcome of `consumeAll`: everything counted, or nothing. */
export interface ConsumeAllResult {
  readonly allowed: boolean
  /** The metric of the first demand that refused, or null when allowed. */
  readonly refusedBy: UsageMetric | null
  /** One result per demand, in order; when refused every `allowed` is false. */
  readonly results: readonly ConsumeResult[]
}

/** One counter of the current period, as `snapshot()` lists it. */
export interface UsageSnapshotEntry {
  readonly tunnelId: string
  readonly metric: UsageMetric
  readonly period: Period
  readonly value: number
}

/**
 * Exact monthly counters per tunnel and metric. Counts, limits and values are non-negative safe
 * integers; anything else throws RangeError. Periods come from `now`, which defaults to the
 * implementation's clock. A resolved increment is in force at once, and stored on the
 * implementation's terms: in Redis as it is decided, in the database within a fraction of a second
 * for the memory one (a crash of its process forgets at most that much); a rejected one was not
 * counted.
 */
export interface UsageCounters {
  /**
   * Atomically add `n` unless the counter would then exceed `limit`; `n` counts only if allowed
   * (no partial counting). Concurrent calls never let the counter pass the limit.
   */
  consume(
    tunnelId: string,
    metric: UsageMetric,
    n: number,
    limit: number,
    now?: Date,
  ): Promise<ConsumeResult>

  /**
   * Add `n` without a limit check, for bytes of a response that is already streaming: it
   * completes even past the limit. `limit` only serves `crossed80`; `allowed` is always true.
   */
  add(
    tunnelId: string,
    metric: UsageMetric,
    n: number,
    limit: number,
    now?: Date,
  ): Promise<ConsumeResult>

  /**
   * Count every demand (each a different metric of the tunnel) or none of them, atomically: a
   * request that needs a tool call and its bytes is refused whole when either would refuse.
   */
  consumeAll(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now?: Date,
  ): Promise<ConsumeAllResult>

  /** The counter's value in `now`'s period (0 when nothing was counted). */
  get(tunnelId: string, metric: UsageMetric, now?: Date): Promise<number>

  /** Operator and support (`burrowd usage set`): set the counter of `now`'s period to `value`. */
  set(tunnelId: string, metric: UsageMetric, value: number, now?: Date): Promise<void>

  /**
   * Every counter of `now`'s period that was ever incremented or set (in Redis, also one its
   * seed of a month created at 0), sorted by tunnel id then metric: what the periodic meter
   * snapshot copies to the database.
   */
  snapshot(now?: Date): Promise<UsageSnapshotEntry[]>

  /** Finish pending writes and stop; later calls reject. Connections passed in stay open. */
  close(): Promise<void>
}

/** The order of `snapshot()`: by tunnel id, then metric (plain code-unit order). */
export function bySnapshotOrder(a: UsageSnapshotEntry, b: UsageSnapshotEntry): number {
  return compare(a.tunnelId, b.tunnelId) || compare(a.metric, b.metric)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The result of a `consumeAll` of one demand (how `consume` and `add` are built on it). */
export function onlyResult(outcome: ConsumeAllResult): ConsumeResult {
  const [result] = outcome.results
  if (result === undefined) throw new Error('usage counters: a demand went unanswered')
  return result
}
