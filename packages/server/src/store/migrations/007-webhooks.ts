/**
 * Migration `007_webhooks`: accounts' outbound webhook endpoints, the durable outbox of deliveries
 * with their attempts, and the unique key that makes `quota.warning` fire once per tunnel, metric
 * and month. Registered in `migrate-to-latest.ts`; the tables' types are in `store/schema.ts`.
 */

import type { Kysely, Migration } from 'kysely'

/** 007: webhook endpoints, deliveries and the once-per-month warning key. */
export const webhooksMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('disabled_at', 'text')
      .addColumn('disabled_reason', 'text')
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    // Every endpoint query is per account (listing, the per-account cap, queueing an event).
    await db.schema
      .createIndex('webhook_endpoints_account')
      .on('webhook_endpoints')
      .column('account_id')
      .execute()
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('endpoint_id', 'text', (c) =>
        c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
      )
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('last_attempt_at', 'text')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('webhook_deliveries_pkey', ['endpoint_id', 'id'])
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute()
    await db.schema
      .createTable('quota_warnings')
      .addColumn('tunnel_id', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('quota_warnings_pkey', ['tunnel_id', 'period', 'metric'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('quota_warnings').execute()
    await db.schema.dropTable('webhook_deliveries').execute()
    await db.schema.dropTable('webhook_endpoints').execute()
  },
}
