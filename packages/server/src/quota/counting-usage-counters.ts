/**
 * What both usage-counter implementations share: the argument checks, and `consume`, `add`,
 * `consumeAll` and `decideAll` built on the one `decide` each of them provides (in memory with a
 * write-ahead, or one Lua script in Redis).
 */
import { checkUsageDemands, checkUsageInput } from './check-usage-input.js'
import { onlyResult } from './usage-counters.js'
import type {
  ConsumeAllResult,
  ConsumeResult,
  UsageCounters,
  UsageDecision,
  UsageDemand,
  UsageMetric,
  UsageSnapshotEntry,
} from './usage-counters.js'

/** The counting half of `UsageCounters`, over an implementation's `decide`. */
export abstract class CountingUsageCounters implements UsageCounters {
  /** The time used when a call passes no `now`. */
  protected abstract now(): Date

  /**
   * Check every demand (already validated) and count all of them or none. `urgent` is false for
   * counts nobody waits on (a response's bytes): storing them may wait for the next urgent one.
   */
  protected abstract decide(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
    urgent: boolean,
  ): Promise<UsageDecision>

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
    return onlyResult(await this.#count(tunnelId, [{ metric, n, limit, check: 'fits' }], now, true))
  }

  async add(
    tunnelId: string,
    metric: UsageMetric,
    n: number,
    limit: number,
    now: Date = this.now(),
  ): Promise<ConsumeResult> {
    checkUsageInput(tunnelId, metric, { n, limit })
    return onlyResult(
      await this.#count(tunnelId, [{ metric, n, limit, check: 'none' }], now, false),
    )
  }

  async consumeAll(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date = this.now(),
  ): Promise<ConsumeAllResult> {
    checkUsageDemands(tunnelId, demands)
    return this.#count(tunnelId, demands, now, true)
  }

  async decideAll(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date = this.now(),
  ): Promise<UsageDecision> {
    checkUsageDemands(tunnelId, demands)
    return this.decide(tunnelId, demands, now, true)
  }

  /** Decide, then wait until what was counted is stored. */
  async #count(
    tunnelId: string,
    demands: readonly UsageDemand[],
    now: Date,
    urgent: boolean,
  ): Promise<ConsumeAllResult> {
    const { outcome, stored } = await this.decide(tunnelId, demands, now, urgent)
    await stored
    return outcome
  }
}
