/**
 * Webhook deliveries found by age: the dispatcher deletes finished deliveries past their
 * retention every hour (`DELIVERY_RETENTION_MS`).
 */
import type { Kysely, Migration } from 'kysely'

export const webhookDeliveriesByAgeMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('webhook_deliveries_created')
      .on('webhook_deliveries')
      .column('created_at')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('webhook_deliveries_created').execute()
  },
}
