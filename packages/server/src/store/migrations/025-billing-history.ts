/**
 * The account's billing history and chargebacks (`billing/billing-history.ts`,
 * `billing/chargeback-reversal.ts`): an adjustment's action (`chargeback`, `chargeback_reverse`,
 * …) and transaction on its event record, when a chargeback ended the account's subscription,
 * and an index to read an account's events newest first.
 */
import type { Kysely, Migration } from 'kysely'

export const billingHistoryMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('billing_events').addColumn('action', 'text').execute()
    await db.schema.alterTable('billing_events').addColumn('transaction_id', 'text').execute()
    await db.schema.alterTable('subscriptions').addColumn('charged_back_at', 'text').execute()
    await db.schema
      .createIndex('billing_events_account')
      .on('billing_events')
      .columns(['account_id', 'occurred_at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('billing_events_account').execute()
    await db.schema.alterTable('subscriptions').dropColumn('charged_back_at').execute()
    await db.schema.alterTable('billing_events').dropColumn('transaction_id').execute()
    await db.schema.alterTable('billing_events').dropColumn('action').execute()
  },
}
