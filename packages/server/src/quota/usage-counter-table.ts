/**
 * Reads and writes of the `usage_counters` table, the same queries on SQLite and PostgreSQL.
 * Increments are upserts that add to the stored value (`value = value + n`), so a write never
 * depends on a value read earlier; a batch of them is one transaction, so it lands whole or
 * not at all.
 */

import type { Insertable, Kysely, Transaction } from 'kysely'
import type { Period } from './period.js'
import { USAGE_METRICS } from './usage-counters.js'
import type { UsageMetric } from './usage-counters.js'
import type { UsageCountersDatabase, UsageCountersTable } from './usage-migration.js'

/** One stored counter. */
export interface UsageCounterRow {
  readonly tunnelId: string
  readonly metric: UsageMetric
  readonly value: number
}

/** One change to a counter: replace it with `set` when given, then add `delta`. */
export interface UsageCounterWrite {
  readonly period: Period
  readonly tunnelId: string
  readonly metric: UsageMetric
  readonly set: number | undefined
  readonly delta: number
}

/** Rows per INSERT: 5 parameters each, well under SQLite's and PostgreSQL's limits. */
const ROWS_PER_STATEMENT = 500

/** The `usage_counters` queries. */
export class UsageCounterTable {
  readonly #db: Kysely<UsageCountersDatabase>

  constructor(db: Kysely<UsageCountersDatabase>) {
    this.#db = db
  }

  /** Every counter stored for `period`. Rows of metrics this version does not know are skipped. */
  async loadPeriod(period: Period): Promise<UsageCounterRow[]> {
    const rows = await this.#db
      .selectFrom('usage_counters')
      .select(['tunnel_id', 'metric', 'value'])
      .where('period', '=', period)
      .execute()
    const counters: UsageCounterRow[] = []
    for (const row of rows) {
      const metric = USAGE_METRICS.find((known) => known === row.metric)
      if (metric === undefined) continue
      counters.push({ tunnelId: row.tunnel_id, metric, value: Number(row.value) })
    }
    return counters
  }

  /** Apply `writes` (at most one per counter) in one transaction, stamped `at`. */
  async write(writes: readonly UsageCounterWrite[], at: Date): Promise<void> {
    if (writes.length === 0) return
    const updatedAt = at.toISOString()
    const toRow = (write: UsageCounterWrite, value: number) => ({
      period: write.period,
      tunnel_id: write.tunnelId,
      metric: write.metric,
      value,
      updated_at: updatedAt,
    })
    const sets = writes
      .filter((w) => w.set !== undefined)
      .map((w) => toRow(w, (w.set ?? 0) + w.delta))
    const deltas = writes.filter((w) => w.set === undefined).map((w) => toRow(w, w.delta))

    await this.#db.transaction().execute(async (trx) => {
      await upsert(trx, deltas, 'add')
      await upsert(trx, sets, 'replace')
    })
  }
}

/** Insert `rows`, or on an existing counter add their value to it or replace it with theirs. */
async function upsert(
  trx: Transaction<UsageCountersDatabase>,
  rows: readonly Insertable<UsageCountersTable>[],
  onExisting: 'add' | 'replace',
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('usage_counters')
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['period', 'tunnel_id', 'metric']).doUpdateSet((eb) => ({
          value:
            onExisting === 'add'
              ? eb('usage_counters.value', '+', eb.ref('excluded.value'))
              : eb.ref('excluded.value'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }
}
