/**
 * Webhook deliveries found by account and time: the outbox counts an account's deliveries of the
 * last hour before it queues more (`MAX_DELIVERIES_PER_HOUR`).
 */
import type { Kysely, Migration } from 'kysely'

export const webhookDeliveriesByAccountMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('webhook_deliveries_account')
      .on('webhook_deliveries')
      .columns(['account_id', 'created_at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('webhook_deliveries_account').execute()
  },
}
