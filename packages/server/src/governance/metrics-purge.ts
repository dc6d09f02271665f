/**
 * Retention of per-method metrics: 5-minute rows feed the 1-hour and 24-hour windows and are kept
 * 48 hours; hourly rows feed the 30-day window and are kept 60 days. Metrics hold counts and
 * latencies only, so they are kept the same on every plan.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../store/schema.js'

const HOUR_MS = 3_600_000

/** How long rows of each span are kept, in milliseconds. */
export const METRICS_RETENTION_MS = { '5m': 48 * HOUR_MS, '1h': 60 * 24 * HOUR_MS } as const

/**
 * Rows one statement of the purge deletes at most: a backlog (a node stopped for days) is deleted
 * in as many statements as it takes, as the history's is (`quota/history-purge.ts`). One
 * statement for all of it could outlast the database bound, failing on every run while the
 * database went on with it, and on SQLite it held the event loop for as long as it ran.
 */
export const METRICS_PURGE_BATCH_ROWS = 5_000

/** Delete metric rows past their span's retention at `now`; the number deleted. */
export async function purgeCallMetrics(
  db: Kysely<Database>,
  now: Date,
  batchRows: number = METRICS_PURGE_BATCH_ROWS,
): Promise<number> {
  let deleted = 0
  for (const [span, keep] of Object.entries(METRICS_RETENTION_MS)) {
    const cutoff = new Date(now.getTime() - keep).toISOString()
    for (;;) {
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
              .limit(batchRows)
              .$asTuple('tunnel_id', 'period_start', 'method', 'tool', 'outcome'),
          ),
        )
        .executeTakeFirst()
      const n = Number(result.numDeletedRows)
      deleted += n
      if (n < batchRows) break
      // Between statements, what waited for the event loop (SQLite runs on it) goes first.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return deleted
}
