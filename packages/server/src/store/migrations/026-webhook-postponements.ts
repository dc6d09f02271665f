/**
 * A webhook delivery whose attempts were never made (burrowd's own name lookups were busy)
 * remembers since when it has been put off, so that it is put off for a bounded time only
 * (docs/decisions.md, "Postponed deliveries").
 */
import type { Kysely, Migration } from 'kysely'

export const webhookPostponementsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('webhook_deliveries').addColumn('postponed_since', 'text').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('webhook_deliveries').dropColumn('postponed_since').execute()
  },
}
