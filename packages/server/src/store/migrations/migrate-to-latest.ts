/**
 * The database migrations, kept in code (no files are read at run time, so the built package
 * migrates wherever it is installed), one file each in this folder, numbered as named. Written
 * with Kysely's schema builder and portable types only, so the same migrations serve SQLite and
 * PostgreSQL. Append new migrations; never edit or rename one that has shipped.
 */

import { Migrator, PostgresAdapter, sql } from 'kysely'
import type { Kysely, Migration, MigrationProvider } from 'kysely'
import { accountsTunnelsMigration } from './001-accounts-tunnels.js'
import { crashReportsMigration } from './002-crash-reports.js'
import { usageCountersMigration } from './003-usage-counters.js'
import { accountsWebMigration } from './004-accounts-web.js'
import { billingMigration } from './005-billing.js'
import { metersMigration } from './006-meters-history.js'
import { webhooksMigration } from './007-webhooks.js'
import { governanceMigration } from './008-governance.js'
import { toolPinsMigration } from './009-tool-pins.js'
import { accountRecoveryMigration } from './010-account-recovery.js'
import { accessMigration } from './011-access.js'
import { customDomainsMigration } from './012-custom-domains.js'
import { callContinuationsMigration } from './013-call-continuations.js'
import { replacedRefreshMigration } from './014-replaced-refresh-tokens.js'
import { oauthClientEvictionMigration } from './015-oauth-client-eviction.js'
import { usedOauthCodesMigration } from './016-used-oauth-codes.js'
import { checkoutTransactionsMigration } from './017-checkout-transactions.js'
import { webhookDeliveriesByAgeMigration } from './018-webhook-deliveries-by-age.js'
import { callHistoryWideCountsMigration } from './019-call-history-wide-counts.js'
import { releasedTunnelsMigration } from './020-released-tunnels.js'
import { canonicalEmailsMigration } from './021-canonical-emails.js'
import { webhookSecretRotationMigration } from './022-webhook-secret-rotation.js'
import { callHistoryByIdMigration } from './023-call-history-by-id.js'
import { billingMicrosecondsMigration } from './024-billing-microseconds.js'
import { billingHistoryMigration } from './025-billing-history.js'
import { webhookPostponementsMigration } from './026-webhook-postponements.js'
import { toolPinFormsMigration } from './027-tool-pin-forms.js'
import { oauthCodesByGrantMigration } from './028-oauth-codes-by-grant.js'
import { toolPinKeysMigration } from './029-tool-pin-keys.js'
import { webhookDeliveriesByAccountMigration } from './030-webhook-deliveries-by-account.js'
import { subscriptionsFromCheckoutMigration } from './031-subscriptions-from-checkout.js'
import { dailyCallMetricsMigration } from './032-daily-call-metrics.js'
import { orphanSubscriptionsMigration } from './033-orphan-subscriptions.js'
import { rejectedToolHashesMigration } from './034-rejected-tool-hashes.js'
import { customDomainCheckOrderMigration } from './035-custom-domain-check-order.js'

/** All migrations by name; names sort in the order they apply. */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001_accounts_tunnels': accountsTunnelsMigration,
  '002_crash_reports': crashReportsMigration,
  '003_usage_counters': usageCountersMigration,
  '004_accounts_web': accountsWebMigration,
  '005_billing': billingMigration,
  '006_meters_history': metersMigration,
  '007_webhooks': webhooksMigration,
  '008_governance': governanceMigration,
  '009_tool_pins': toolPinsMigration,
  '010_account_recovery': accountRecoveryMigration,
  '011_access': accessMigration,
  '012_custom_domains': customDomainsMigration,
  '013_call_continuations': callContinuationsMigration,
  '014_replaced_refresh_tokens': replacedRefreshMigration,
  '015_oauth_client_eviction': oauthClientEvictionMigration,
  '016_used_oauth_codes': usedOauthCodesMigration,
  '017_checkout_transactions': checkoutTransactionsMigration,
  '018_webhook_deliveries_by_age': webhookDeliveriesByAgeMigration,
  '019_call_history_wide_counts': callHistoryWideCountsMigration,
  '020_released_tunnels': releasedTunnelsMigration,
  '021_canonical_emails': canonicalEmailsMigration,
  '022_webhook_secret_rotation': webhookSecretRotationMigration,
  '023_call_history_by_id': callHistoryByIdMigration,
  '024_billing_microseconds': billingMicrosecondsMigration,
  '025_billing_history': billingHistoryMigration,
  '026_webhook_postponements': webhookPostponementsMigration,
  '027_tool_pin_forms': toolPinFormsMigration,
  '028_oauth_codes_by_grant': oauthCodesByGrantMigration,
  '029_tool_pin_keys': toolPinKeysMigration,
  '030_webhook_deliveries_by_account': webhookDeliveriesByAccountMigration,
  '031_subscriptions_from_checkout': subscriptionsFromCheckoutMigration,
  '032_daily_call_metrics': dailyCallMetricsMigration,
  '033_orphan_subscriptions': orphanSubscriptionsMigration,
  '034_rejected_tool_hashes': rejectedToolHashesMigration,
  '035_custom_domain_check_order': customDomainCheckOrderMigration,
}

const provider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
}

/**
 * Apply every pending migration, in order, and return the names applied (empty when the database
 * was already up to date). All of them run in one transaction, so a run that fails half-way (a
 * full disk, a killed process) leaves the database as it was and the next start applies them
 * again. Safe to run from several nodes at once: on PostgreSQL Kysely takes an advisory lock; on
 * SQLite the transaction takes the database's write lock before it reads which have run.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Naming the schema keeps Kysely from mistaking another schema's migration tables for ours
    // (it looks for them in every schema, then reads them from the current one).
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
    return migrate(db, rows[0]?.schema)
  }
  // Kysely runs SQLite's migrations outside any transaction (it assumes SQLite's DDL is not
  // transactional; it is): a migration that failed after its first statement stayed half-done,
  // and every later start failed on what it had created. `begin immediate` waits busy_timeout
  // for another process migrating the same file, instead of reading first and failing.
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection)
    try {
      const applied = await migrate(connection)
      await sql`commit`.execute(connection)
      return applied
    } catch (error) {
      // SQLite may have rolled back already (e.g. on a full disk).
      await sql`rollback`.execute(connection).catch(() => {})
      throw error
    }
  })
}

async function migrate<DB>(db: Kysely<DB>, schema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    // Kysely checks that the migrations run so far are the first ones by name, in the order of the
    // times recorded for them: a migration recorded by a clock that was behind (a node whose clock
    // is off, a host that booted before it set its clock) made every later start refuse the
    // database as "corrupted". The names alone say the order; the migrations run are still
    // checked to be ones this version knows.
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error !== undefined) {
    const cause = error instanceof Error ? error : new Error(JSON.stringify(error))
    const failed = results.find((r) => r.status === 'Error')
    // Without a failed migration the error is not one of ours (e.g. no connection): pass it on,
    // unless it is Kysely finding a migration this version does not have (a downgrade).
    if (failed === undefined) throw newerDatabaseError(cause) ?? cause
    throw new Error(`migration "${failed.migrationName}" failed: ${cause.message}`, { cause })
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/**
 * The refusal of a database that a newer burrowd migrated (Kysely calls it "corrupted"), or null
 * for any other error. Nothing was changed: this version would misread the newer tables.
 */
function newerDatabaseError(cause: Error): Error | null {
  const unknown = /previously executed migration (\S+) is missing/.exec(cause.message)
  if (unknown === null) return null
  return new Error(
    `a newer burrowd migrated this database (migration "${unknown[1]}" is not one this ` +
      'version knows); run that version or a later one, or restore the backup taken before it',
    { cause },
  )
}
