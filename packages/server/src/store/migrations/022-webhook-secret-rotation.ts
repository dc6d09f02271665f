/**
 * A webhook endpoint's secret can be rotated: the secret it replaced keeps signing deliveries
 * (beside the new one) until `previous_secret_expires_at`, so receivers switch without losing
 * any.
 */
import type { Kysely, Migration } from 'kysely'

export const webhookSecretRotationMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret', 'text').execute()
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('previous_secret_expires_at', 'text')
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('webhook_endpoints')
      .dropColumn('previous_secret_expires_at')
      .execute()
    await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').execute()
  },
}
