/**
 * Migration `001_accounts_tunnels`: accounts, their tunnels (the key stored only as a SHA-256
 * hash) and the server-wide settings. Registered in `migrate-to-latest.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 001: accounts, their tunnels (keys stored as hashes) and server-wide settings. */
export const accountsTunnelsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('plan', 'text', (c) => c.notNull().defaultTo('free'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('tunnels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('name', 'text')
      .addColumn('subdomain', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text')
      .addUniqueConstraint('tunnels_account_subdomain_unique', ['account_id', 'subdomain'])
      .execute()
    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('tunnels').execute()
    await db.schema.dropTable('accounts').execute()
    await db.schema.dropTable('settings').execute()
  },
}
