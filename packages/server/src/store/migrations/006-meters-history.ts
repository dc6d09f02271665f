/**
 * Migration `006_meters_history`: the usage meters the billing page reads (a periodic snapshot of
 * the live counters, with the time it was taken) and the call history the edge records, purged per
 * the account's plan retention. Registered in `migrate-to-latest.ts`; the tables' types are in
 * `store/schema.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 006: meter snapshots and call history. */
export const metersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('usage_snapshots')
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('tunnel_id', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .addColumn('taken_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_snapshots_pkey', ['period', 'tunnel_id', 'metric'])
      .execute()
    await db.schema
      .createTable('call_history')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('tool', 'text')
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('policy_code', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('call_history_tunnel_at')
      .on('call_history')
      .columns(['tunnel_id', 'at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('call_history').execute()
    await db.schema.dropTable('usage_snapshots').execute()
  },
}
