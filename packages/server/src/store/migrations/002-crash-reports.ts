/**
 * Migration `002_crash_reports`: the error reports `burrow` clients send, which operators list
 * newest first. Registered in `migrate-to-latest.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 002: crash reports sent by `burrow` clients, listed newest first by operators. */
export const crashReportsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('crash_reports')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .addColumn('client_version', 'text', (c) => c.notNull())
      .addColumn('os', 'text', (c) => c.notNull())
      .addColumn('arch', 'text', (c) => c.notNull())
      .addColumn('node', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('stack', 'text', (c) => c.notNull())
      .addColumn('command', 'text')
      .execute()
    await db.schema
      .createIndex('crash_reports_received_at')
      .on('crash_reports')
      .columns(['received_at', 'id'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('crash_reports').execute()
  },
}
