/**
 * What both usage-counter implementations share: the argument checks, and `consume`, `add` and
 * `consumeAll` built on the one `decide` each of them provides (in memory, written to the
 * database in batches, or one Lua script in Redis).
 */
import { checkUsageDemands, checkUsageInput } from './check-usage-input.js'
import { onlyResult } from './usage-counters.js'
import type {
  ConsumeAllResult,
  ConsumeResult,
  UsageCounters,
  UsageDemand,
  UsageMetric,
  UsageSnapshotEntry,
} from './usage-counters.js'

/** The counting half of `UsageCounters`, over an implementation's `decide`. */
export abstract class CountingUsageCounters implements UsageCounters {
  /** The time used when a call passes no `now`. */
  protected abstract now(): Date

  /** Check every demand (already validated) and count all of them or none. */
  protected abstract decide(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
  ): Promise<ConsumeAllResult>

  abstract get(tunnelId: string, metric: UsageMetric, now?: Date): Promise<number>
  abstract set(tunnelId: string, metric: UsageMetric, value: number, now?: Date): Promise<void>
  abstract snapshot(now?: Date): Promise<UsageSnapshotEntry[]>
  abstract close(): Promise<void>

  async consume(
    tunnelId: string,
    metric: UsageMetric,
    n: number,
    limit: number,
    now: Date = this.now(),
  ): Promise<ConsumeResult> {
    checkUsageInput(tunnelId, metric, { n, limit })
    return onlyResult(await this.decide(tunnelId, [{ metric, n, limit, check: 'fits' }], now))
  }

  async add(
    tunnelId: string,
    metric: UsageMetric,
    n: number,
    limit: number,
    now: Date = this.now(),
  ): Promise<ConsumeResult> {
    checkUsageInput(tunnelId, metric, { n, limit })
    return onlyResult(await this.decide(tunnelId, [{ metric, n, limit, check: 'none' }], now))
  }

  async consumeAll(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date = this.now(),
  ): Promise<ConsumeAllResult> {
    checkUsageDemands(tunnelId, demands)
    return this.decide(tunnelId, demands, now)
  }
}
