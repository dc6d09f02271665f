/**
 * Migration `033_orphan_subscriptions`: subscriptions live at the payment provider that give their
 * account nothing (another subscription holds its plan), waiting to be cancelled there
 * (`billing/orphan-subscriptions.ts`), and when each was settled (cancelled, or refused by the
 * provider): kept after, so that later news of it does not cancel it again. No foreign key: a
 * deleted account's orphan is still cancelled.
 */
import type { Kysely, Migration } from 'kysely'

export const orphanSubscriptionsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('orphan_subscriptions')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('effective_from', 'text', (c) => c.notNull())
      .addColumn('found_at', 'text', (c) => c.notNull())
      .addColumn('settled_at', 'text')
      .addPrimaryKeyConstraint('orphan_subscriptions_pk', ['provider', 'subscription_id'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('orphan_subscriptions').execute()
  },
}
