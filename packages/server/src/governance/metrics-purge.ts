/**
 * Retention of per-method metrics: 5-minute rows feed the 1-hour window and hourly rows the
 * 24-hour one, each kept 48 hours; daily rows feed the 30-day window and are kept 60 days. Metrics
 * hold counts and latencies only, so they are kept the same on every plan.
 */
import type { Kysely } from 'kysely'
import { deleteInBatches, PURGE_BATCH_ROWS } from '../store/delete-in-batches.js'
import type { Database } from '../store/schema.js'

const HOUR_MS = 3_600_000

/** How long rows of each span are kept, in milliseconds. */
export const METRICS_RETENTION_MS = {
  '5m': 48 * HOUR_MS,
  '1h': 48 * HOUR_MS,
  '1d': 60 * 24 * HOUR_MS,
} as const

/** Delete metric rows past their span's retention at `now`; the number deleted. */
export async function purgeCallMetrics(
  db: Kysely<Database>,
  now: Date,
  batchRows: number = PURGE_BATCH_ROWS,
): Promise<number> {
  let deleted = 0
  for (const [span, keep] of Object.entries(METRICS_RETENTION_MS)) {
    const cutoff = new Date(now.getTime() - keep).toISOString()
    deleted += await deleteInBatches(batchRows, async (limit) => {
      // The primary key less its span, which both sides fix (a tuple has at most five).
      const result = await db
        .deleteFrom('call_metrics')
        .where('span', '=', span)
        .where((eb) =>
          eb(eb.refTuple('tunnel_id', 'period_start', 'method', 'tool', 'outcome'), 'in', (old) =>
            old
              .selectFrom('call_metrics')
              .select(['tunnel_id', 'period_start', 'method', 'tool', 'outcome'])
              .where('span', '=', span)
              .where('period_start', '<', cutoff)
              .limit(limit)
              .$asTuple('tunnel_id', 'period_start', 'method', 'tool', 'outcome'),
          ),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    })
  }
  return deleted
}
