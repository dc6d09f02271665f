/**
 * What the monthly quotas keep of deleted tunnels, dropped once nothing can read it: their rows
 * of `usage_counters` and `usage_snapshots` for months that are over, and the notes of tunnels
 * deleted in those months (`released_tunnels`). Within its month a deleted tunnel's counters are
 * still read (the account's next tunnel carries them on: `inherit-usage.ts`); after it, neither
 * the meters (`read-meters.ts`, an account's tunnels this month) nor the counters (a month is
 * loaded when it starts) look at them again. Before, a tunnel created and deleted in a loop left
 * two rows a round for good (found by a hostile review).
 */
import type { Kysely } from 'kysely'
import { deleteInBatches, PURGE_BATCH_ROWS } from '../store/delete-in-batches.js'
import type { Database } from '../store/schema.js'
import { periodOf } from './period.js'

/** Rows deleted by one purge. */
export interface UsagePurgeCounts {
  readonly counters: number
  readonly snapshots: number
  readonly released: number
}

/** Delete the usage rows of deleted tunnels for the months before `now`'s. */
export async function purgeDeletedTunnelsUsage(
  db: Kysely<Database>,
  now: Date,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<UsagePurgeCounts> {
  const period = periodOf(now)
  const counts = { counters: 0, snapshots: 0, released: 0 }
  for (const table of ['usage_counters', 'usage_snapshots'] as const) {
    const deleted = await deleteInBatches(batchRows, async (limit) => {
      // The primary key (period, tunnel, metric) of at most `limit` rows of deleted tunnels.
      const result = await db
        .deleteFrom(table)
        .where((eb) =>
          eb(eb.refTuple('period', 'tunnel_id', 'metric'), 'in', (old) =>
            old
              .selectFrom(table)
              .select(['period', 'tunnel_id', 'metric'])
              .where('period', '<', period)
              .where('tunnel_id', 'not in', (tunnels) => tunnels.selectFrom('tunnels').select('id'))
              .limit(limit)
              .$asTuple('period', 'tunnel_id', 'metric'),
          ),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
    if (table === 'usage_counters') counts.counters = deleted
    else counts.snapshots = deleted
  }
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString()
  counts.released = await deleteInBatches(batchRows, async (limit) => {
    const result = await db
      .deleteFrom('released_tunnels')
      .where((eb) =>
        eb(eb.refTuple('account_id', 'tunnel_id'), 'in', (old) =>
          old
            .selectFrom('released_tunnels')
            .select(['account_id', 'tunnel_id'])
            .where('released_at', '<', monthStart)
            .limit(limit)
            .$asTuple('account_id', 'tunnel_id'),
        ),
      )
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  })
  return counts
}
