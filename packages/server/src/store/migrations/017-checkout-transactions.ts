/**
 * The checkout transactions burrowd made, each for one account. A new subscription proves it came
 * from one of them by the `transaction_id` Paddle puts in `subscription.created`; the custom data
 * naming the account is the buyer's to write, so it alone does not bind a subscription to an
 * account that is already on a paid plan (docs/security.md, "Known gaps"). Events record the
 * subscription they were about, so that the later events of a subscription whose
 * `subscription.created` was refused are known as such.
 */
import type { Kysely, Migration } from 'kysely'

export const checkoutTransactionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('checkout_transactions')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('transaction_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('checkout_transactions_pk', ['provider', 'transaction_id'])
      .execute()
    await db.schema
      .createIndex('checkout_transactions_account')
      .on('checkout_transactions')
      .column('account_id')
      .execute()
    await db.schema.alterTable('billing_events').addColumn('subscription_id', 'text').execute()
    await db.schema
      .createIndex('billing_events_subscription')
      .on('billing_events')
      .column('subscription_id')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('billing_events_subscription').execute()
    await db.schema.alterTable('billing_events').dropColumn('subscription_id').execute()
    await db.schema.dropTable('checkout_transactions').execute()
  },
}
