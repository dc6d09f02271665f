/**
 * The database migrations, kept in code (no files are read at run time, so the built package
 * migrates wherever it is installed). Written with Kysely's schema builder and portable types
 * only, so the same migrations serve SQLite and PostgreSQL. Append new migrations; never edit
 * one that has shipped.
 */

import { Migrator } from 'kysely'
import type { Kysely, Migration, MigrationProvider } from 'kysely'
import { accountsWebMigration } from '../accounts/accounts-migration.js'
import { billingMigration } from '../billing/billing-migration.js'
import { metersMigration } from '../quota/meters-migration.js'
import { usageCountersMigration } from '../quota/usage-migration.js'
import { webhooksMigration } from '../webhooks/webhooks-migration.js'

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

/** 002: crash reports sent by `burrow` clients, listed newest first by operators. */
const crashReports: Migration = {
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

/** All migrations by name; names sort in the order they apply. */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001_accounts_tunnels': accountsTunnels,
  '002_crash_reports': crashReports,
  '003_usage_counters': usageCountersMigration,
  '004_accounts_web': accountsWebMigration,
  '005_billing': billingMigration,
  '006_meters_history': metersMigration,
  '007_webhooks': webhooksMigration,
}

const provider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
}

/**
 * Apply every pending migration, in order, and return the names applied (empty when the database
 * was already up to date). Safe to run from several nodes at once: Kysely takes a lock.
 */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  options: { schema?: string } = {},
): Promise<string[]> {
  // Naming the schema keeps Kysely from mistaking another schema's migration tables for ours.
  const migrator = new Migrator({
    db,
    provider,
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
  })
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
