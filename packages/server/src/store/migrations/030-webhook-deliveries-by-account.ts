/**
 * Migration `030_webhook_deliveries_by_account`: pending deliveries found by account and due
 * time. The dispatcher gives its places to accounts by turns (webhooks/webhook-dispatcher.ts):
 * it reads each account's oldest due delivery in one grouped query, and then the chosen
 * accounts' oldest due deliveries, both from this index alone.
 */
import type { Kysely, Migration } from 'kysely'

export const webhookDeliveriesByAccountMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('webhook_deliveries_account_due')
      .on('webhook_deliveries')
      .columns(['status', 'account_id', 'next_attempt_at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('webhook_deliveries_account_due').execute()
  },
}
