/**
 * The database migrations, kept in code (no files are read at run time, so the built package
 * migrates wherever it is installed). Written with Kysely's schema builder and portable types
 * only, so the same migrations serve SQLite and PostgreSQL. Append new migrations; never edit
 * one that has shipped.
 */

import { Migrator } from 'kysely'
import type { Kysely, Migration, MigrationProvider } from 'kysely'

/** 001: accounts, their tunnels (keys stored as hashes) and server-wide settings. */
const accountsTunnels: Migration = {
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

/** All migrations by name; names sort in the order they apply. */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001_accounts_tunnels': accountsTunnels,
}

const provider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
}

/**
 * Apply every pending migration, in order, and return the names applied (empty when the database
 * was already up to date). Safe to run from several nodes at once: Kysely takes a lock.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) {
    const cause = error instanceof Error ? error : new Error(JSON.stringify(error))
    const failed = results.find((r) => r.status === 'Error')
    // Without a failed migration the error is not one of ours (e.g. no connection): pass it on.
    if (failed === undefined) throw cause
    throw new Error(`migration "${failed.migrationName}" failed: ${cause.message}`, { cause })
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
