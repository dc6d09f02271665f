/**
 * The reader behind `GET /api/billing`'s usage meters (docs/api.md#billing): this month's tool
 * calls and bandwidth of each of an account's tunnels, as of the last snapshot
 * (`meter-snapshots.ts`), with the time it was taken and when the counters reset. Reads only the
 * database: the meters lag the live counters by up to one snapshot interval.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'
import { METERS_TAKEN_AT_SETTING } from './meter-snapshots.js'
import { nextResetOf, periodOf } from './period.js'
import type { Period } from './period.js'

/** One tunnel's meters. */
export interface TunnelMeters {
  readonly tunnelId: string
  readonly toolCalls: number
  readonly bandwidthBytes: number
}

/** An account's meters for the month of `now`. */
export interface AccountMeters {
  /** `YYYY-MM`, UTC. */
  readonly period: Period
  /** When the snapshot was taken; null when none was ever taken. */
  readonly takenAt: Date | null
  /** 00:00 UTC on the 1st of the next month. */
  readonly resetsAt: Date
  /** Every tunnel of the account, oldest first; 0 for a tunnel with no usage this month. */
  readonly tunnels: readonly TunnelMeters[]
}

/** The meters of account `accountId` for the month containing `now`. */
export async function readMeters(
  db: Kysely<Database>,
  accountId: string,
  now: Date,
): Promise<AccountMeters> {
  const period = periodOf(now)
  const tunnels = await db
    .selectFrom('tunnels')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  const rows =
    tunnels.length === 0
      ? []
      : await db
          .selectFrom('usage_snapshots')
          .select(['tunnel_id', 'metric', 'value'])
          .where('period', '=', period)
          .where(
            'tunnel_id',
            'in',
            tunnels.map((t) => t.id),
          )
          .execute()
  const taken = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', METERS_TAKEN_AT_SETTING)
    .executeTakeFirst()
  const values = new Map(rows.map((r) => [`${r.tunnel_id} ${r.metric}`, Number(r.value)]))
  const value = (tunnelId: string, metric: string) => values.get(`${tunnelId} ${metric}`) ?? 0
  return {
    period,
    takenAt: taken ? new Date(taken.value) : null,
    resetsAt: nextResetOf(now),
    tunnels: tunnels.map((t) => ({
      tunnelId: t.id,
      toolCalls: value(t.id, 'tool_calls'),
      bandwidthBytes: value(t.id, 'bandwidth_bytes'),
    })),
  }
}
