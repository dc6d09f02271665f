/**
 * A call's bytes and duration as 64-bit integers on PostgreSQL, where `integer` is 32 bits: a
 * streamed answer past 2 GiB (or a stream open for 25 days) made the record's INSERT fail, and
 * the call went unrecorded there while SQLite, whose integers are 64-bit, kept it.
 */
import { PostgresAdapter, sql } from 'kysely'
import type { Kysely, Migration } from 'kysely'

const COLUMNS = ['bytes_in', 'bytes_out', 'duration_ms'] as const

export const callHistoryWideCountsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    // One statement: PostgreSQL rewrites the table once, not once per column.
    await sql
      .raw(
        `alter table call_history ${COLUMNS.map((c) => `alter column ${c} type bigint`).join(', ')}`,
      )
      .execute(db)
  },
  async down(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    for (const column of COLUMNS) {
      await db.schema
        .alterTable('call_history')
        .alterColumn(column, (c) => c.setDataType('integer'))
        .execute()
    }
  },
}
