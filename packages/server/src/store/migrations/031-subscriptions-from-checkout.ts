/**
 * Migration `031_subscriptions_from_checkout`: whether the account's subscription came from a
 * checkout burrowd made for it (1) or bound by the custom data naming the account alone, while
 * the account was on Free (0; it may be a stranger's). Only the first kind refuses another
 * checkout while it lives (`billing/billing-service.ts`). Rows from before count as the first
 * kind, so that an account's live subscription goes on refusing a second one as it did.
 */
import type { Kysely, Migration } from 'kysely'

export const subscriptionsFromCheckoutMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('subscriptions')
      .addColumn('from_checkout', 'integer', (c) => c.notNull().defaultTo(1))
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').dropColumn('from_checkout').execute()
  },
}
