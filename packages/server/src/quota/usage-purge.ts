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
import { periodOf, type Period } from './period.js'

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
  counts.counters = await deleteInBatches(batchRows, (limit) =>
    deleteOfDeleted(db, 'usage_counters', period, limit),
  )
  counts.snapshots = await deleteInBatches(batchRows, (limit) =>
    deleteOfDeleted(db, 'usage_snapshots', period, limit),
  )
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

/**
 * Delete at most `limit` rows of `table` of months before `period` whose tunnel no longer exists
 * (looked up by its key: an anti-join on either database); the number deleted.
 */
async function deleteOfDeleted(
  db: Kysely<Database>,
  table: 'usage_counters' | 'usage_snapshots',
  period: Period,
  limit: number,
): Promise<number> {
  // Typed as `usage_counters`: both tables key their rows by (period, tunnel_id, metric).
  const named = table as 'usage_counters'
  const result = await db
    .deleteFrom(named)
    .where((eb) =>
      eb(eb.refTuple('period', 'tunnel_id', 'metric'), 'in', (old) =>
        old
          .selectFrom(`${named} as u` as 'usage_counters as u')
          .select(['u.period', 'u.tunnel_id', 'u.metric'])
          .where('u.period', '<', period)
          .where((inner) =>
            inner.not(
              inner.exists(
                inner.selectFrom('tunnels').select('id').whereRef('id', '=', 'u.tunnel_id'),
              ),
            ),
          )
          .limit(limit)
          .$asTuple('period', 'tunnel_id', 'metric'),
      ),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
