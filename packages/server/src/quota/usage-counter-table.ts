/**
 * Reads and writes of the `usage_counters` table, the same queries on SQLite and PostgreSQL.
 * A write is an upsert that either adds to the stored value (`value = value + n`) or replaces it;
 * a batch of them is one statement or one transaction, so it lands whole or not at all. The
 * counters' write queue stores whole values (a write it must repeat then counts nothing twice).
 *
 * Writes run every fraction of a second on a busy node, so their SQL is built by Kysely once per
 * kind and row count and then run again with new parameters.
 */

import type { Insertable, Kysely, Transaction } from 'kysely'
import type { Period } from './period.js'
import { USAGE_METRICS } from './usage-counters.js'
import type { UsageMetric } from './usage-counters.js'
import type { UsageCountersDatabase, UsageCountersTable } from '../store/schema.js'
import { RowStatements } from '../store/row-statements.js'

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

/** How an upsert treats a counter that already has a row. */
type OnExisting = 'add' | 'replace'

/** The columns of a row, in the order their values are listed. */
const COLUMNS = ['period', 'tunnel_id', 'metric', 'value', 'updated_at'] as const

/** The `usage_counters` queries. */
export class UsageCounterTable {
  readonly #db: Kysely<UsageCountersDatabase>
  /** The upserts, compiled once per kind and row count. */
  readonly #upserts = new RowStatements<UsageCountersDatabase, Insertable<UsageCountersTable>>(
    COLUMNS,
  )

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

  /** Apply `writes` (at most one per counter) at once, stamped `at`. */
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

    // One statement is atomic by itself: the usual batch (all of one kind) needs no transaction.
    if (sets.length === 0 && deltas.length <= ROWS_PER_STATEMENT) {
      await this.#upsert(this.#db, deltas, 'add')
      return
    }
    if (deltas.length === 0 && sets.length <= ROWS_PER_STATEMENT) {
      await this.#upsert(this.#db, sets, 'replace')
      return
    }
    await this.#db.transaction().execute(async (trx) => {
      for (let start = 0; start < deltas.length; start += ROWS_PER_STATEMENT)
        await this.#upsert(trx, deltas.slice(start, start + ROWS_PER_STATEMENT), 'add')
      for (let start = 0; start < sets.length; start += ROWS_PER_STATEMENT)
        await this.#upsert(trx, sets.slice(start, start + ROWS_PER_STATEMENT), 'replace')
    })
  }

  /** Run one upsert of `rows` (at most `ROWS_PER_STATEMENT`). */
  async #upsert(
    db: Kysely<UsageCountersDatabase> | Transaction<UsageCountersDatabase>,
    rows: readonly Insertable<UsageCountersTable>[],
    onExisting: OnExisting,
  ): Promise<void> {
    await this.#upserts.run(db, onExisting, rows, (runner, some) =>
      upsertQuery(runner, some, onExisting),
    )
  }
}

/** Insert `rows`, or on an existing counter add their value to it or replace it with theirs. */
function upsertQuery(
  db: Kysely<UsageCountersDatabase> | Transaction<UsageCountersDatabase>,
  rows: readonly Insertable<UsageCountersTable>[],
  onExisting: OnExisting,
) {
  return db
    .insertInto('usage_counters')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['period', 'tunnel_id', 'metric']).doUpdateSet((eb) => ({
        value:
          onExisting === 'add'
            ? eb('usage_counters.value', '+', eb.ref('excluded.value'))
            : eb.ref('excluded.value'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
}
