/**
 * `quota.warning` (docs/webhooks.md#quotawarning): sent once per tunnel, metric and month when
 * usage reaches 80% of the plan's limit. "Once" is a unique key in `quota_warnings`, not a flag in
 * memory, so it holds across concurrent requests, several nodes and restarts: the key and the
 * outbox rows are written in one transaction, and only the caller whose insert created the key
 * queues the event. The event's `webhook-id` is derived from the key, so even a repeat would be one
 * receivers drop.
 */

import type { Kysely } from 'kysely'
import { periodOf, previousPeriodOf } from '../quota/period.js'
import type { Period } from '../quota/period.js'
import { USAGE_METRICS } from '../quota/usage-counters.js'
import type { UsageMetric } from '../quota/usage-counters.js'
import type { Database } from '../store/schema.js'
import { enqueueWebhookEvent } from './webhook-outbox.js'

/** What the quota code knows when a counter crosses 80%. */
export interface QuotaWarningInput {
  readonly accountId: string
  readonly tunnelId: string
  /** The tunnel's friendly name, if it has one. */
  readonly tunnelName?: string | null
  /** The tunnel's public MCP URL, if known. */
  readonly publicUrl?: string | null
  readonly metric: UsageMetric
  /** The plan's monthly limit for `metric`. */
  readonly limit: number
  /** Usage after the increment that crossed 80%. */
  readonly used: number
  /** The month counted in, `YYYY-MM` (UTC). */
  readonly period: Period
  /** When the counter resets: 00:00 UTC on the 1st of the next month. */
  readonly resetsAt: Date
  /** When it happened: the event's `timestamp`. */
  readonly now: Date
}

/** The `data` of a `quota.warning` event, as documented in docs/webhooks.md. */
export interface QuotaWarningData {
  readonly tunnel: {
    readonly id: string
    readonly name: string | null
    readonly public_url: string | null
  }
  readonly metric: UsageMetric
  readonly limit: number
  readonly used: number
  /** `used` as a whole percentage of `limit`, rounded down. */
  readonly percent: number
  readonly period: Period
  /** ISO-8601 UTC. */
  readonly resets_at: string
}

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/
const TUNNEL_ID = /^[A-Za-z0-9_-]{1,100}$/

/** The `webhook-id` of a warning: `qw_<tunnelId>_<period>_<metric>` (no dots, as the spec asks). */
export function quotaWarningId(tunnelId: string, period: Period, metric: UsageMetric): string {
  return `qw_${tunnelId}_${period}_${metric}`
}

/**
 * Record the warning for (tunnel, period, metric) and queue `quota.warning` to the account's
 * subscribed endpoints, unless it was already recorded. Resolves true only for the one call that
 * recorded it. Throws RangeError for malformed input.
 */
export async function emitQuotaWarning(
  db: Kysely<Database>,
  input: QuotaWarningInput,
): Promise<boolean> {
  checkInput(input)
  const data: QuotaWarningData = {
    tunnel: {
      id: input.tunnelId,
      name: input.tunnelName ?? null,
      public_url: input.publicUrl ?? null,
    },
    metric: input.metric,
    limit: input.limit,
    used: input.used,
    percent: Math.floor((input.used * 100) / input.limit),
    period: input.period,
    resets_at: input.resetsAt.toISOString(),
  }
  return db.transaction().execute(async (trx) => {
    const recorded = await trx
      .insertInto('quota_warnings')
      .values({
        tunnel_id: input.tunnelId,
        period: input.period,
        metric: input.metric,
        created_at: input.now.toISOString(),
      })
      .onConflict((oc) => oc.columns(['tunnel_id', 'period', 'metric']).doNothing())
      .returning('tunnel_id')
      .executeTakeFirst()
    if (recorded === undefined) return false
    await enqueueWebhookEvent(trx, {
      accountId: input.accountId,
      type: 'quota.warning',
      id: quotaWarningId(input.tunnelId, input.period, input.metric),
      data: { ...data },
      occurredAt: input.now,
    })
    return true
  })
}

/**
 * Forget the warnings of months before the one before `at`'s: their keys can no longer stop a
 * warning (a count late across midnight on the 1st still crosses in last month, so that one is
 * kept). Nothing ties a key to its tunnel, so this is also what removes a deleted tunnel's.
 */
export async function pruneQuotaWarnings(db: Kysely<Database>, at: Date): Promise<void> {
  await db
    .deleteFrom('quota_warnings')
    .where('period', '<', previousPeriodOf(periodOf(at)))
    .execute()
}

function checkInput(input: QuotaWarningInput): void {
  const problem = inputProblem(input)
  if (problem !== null) throw new RangeError(`quota.warning: ${problem}`)
}

function inputProblem(input: QuotaWarningInput): string | null {
  if (!TUNNEL_ID.test(input.tunnelId)) {
    return `tunnel id "${input.tunnelId}" is not 1-100 of A-Z, a-z, 0-9, "_", "-"`
  }
  if (!USAGE_METRICS.includes(input.metric)) {
    return `metric "${String(input.metric)}" is not one of ${USAGE_METRICS.join(', ')}`
  }
  if (!PERIOD.test(input.period)) return `period "${input.period}" is not YYYY-MM`
  if (!(Number.isSafeInteger(input.limit) && input.limit > 0)) {
    return `limit ${input.limit} is not a positive whole number`
  }
  if (!(Number.isSafeInteger(input.used) && input.used >= 0)) {
    return `used ${input.used} is not a whole number of at least 0`
  }
  if (Number.isNaN(input.resetsAt.getTime()) || Number.isNaN(input.now.getTime())) {
    return 'resetsAt and now must be valid dates'
  }
  return null
}
