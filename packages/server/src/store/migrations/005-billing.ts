/**
 * Migration `005_billing`: subscriptions bought through the payment provider and the provider's
 * webhook events already processed. The account row carries the effective result: `plan`, and
 * `plan_expires_at` after which the plan is Free even if no webhook arrives (a cancelled
 * subscription keeps paid limits until its period ends). Registered in `migrate-to-latest.ts`; the
 * tables' types are in `store/schema.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 005: plan expiry on accounts (indexed for the sweep), subscriptions and processed billing events. */
export const billingMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('accounts').addColumn('plan_expires_at', 'text').execute()
    await db.schema
      .createTable('subscriptions')
      .addColumn('account_id', 'text', (c) =>
        c.primaryKey().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text', (c) => c.notNull().unique())
      .addColumn('customer_id', 'text')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('cycle', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('period_ends_at', 'text')
      .addColumn('cancels_at', 'text')
      .addColumn('synced_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('billing_events')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('occurred_at', 'text', (c) => c.notNull())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('billing_events_pkey', ['provider', 'event_id'])
      .execute()
    // The expiry sweep looks for accounts whose paid period has ended.
    await db.schema
      .createIndex('accounts_plan_expires_at')
      .on('accounts')
      .column('plan_expires_at')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('accounts_plan_expires_at').execute()
    await db.schema.dropTable('billing_events').execute()
    await db.schema.dropTable('subscriptions').execute()
    await db.schema.alterTable('accounts').dropColumn('plan_expires_at').execute()
  },
}
