/**
 * The event the edge raises when a tunnel's monthly counter reaches 80% of its limit
 * (`quota.warning`, docs/webhooks.md#quotawarning). The edge only calls the injected callback, once
 * per crossing as the counters report it (`crossed80`); delivering it (webhooks, once per tunnel,
 * metric and month) is the webhooks component's job.
 */
import type { Period } from './period.js'
import type { UsageMetric } from './usage-counters.js'

/** What a `quota.warning` is about. */
export interface QuotaWarning {
  readonly accountId: string
  readonly tunnelId: string
  readonly metric: UsageMetric
  /** The monthly limit of the tunnel's plan. */
  readonly limit: number
  /** The counter right after the increment that crossed 80%. */
  readonly used: number
  /** `YYYY-MM`, UTC. */
  readonly period: Period
  /** 00:00 UTC on the 1st of the next month. */
  readonly resetsAt: Date
}

/**
 * Called when a counter crosses 80% of its limit. Runs off the request's path: it is not
 * awaited, and a throw or rejection is logged, never passed to the agent, and the warning is
 * offered again a few seconds later while its month lasts (`warning-offers.ts`).
 */
export type QuotaWarningListener = (warning: QuotaWarning) => void | Promise<void>
