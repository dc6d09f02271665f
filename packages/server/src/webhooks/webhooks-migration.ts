/**
 * Migration `007_webhooks`: accounts' outbound webhook endpoints, the durable outbox of
 * deliveries with their attempts, and the unique key that makes `quota.warning` fire once per
 * tunnel, metric and month. Registered in `store/migrations.ts`.
 */

import type { ColumnType, Kysely, Migration } from 'kysely'

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** `webhook_endpoints`: where an account wants its events sent. */
export interface WebhookEndpointsTable {
  /** `we_` + random hex. */
  id: string
  account_id: string
  url: string
  /** `whsec_` + base64 of 32 random bytes (Standard Webhooks); shown to the owner. */
  secret: string
  /** Comma-separated event types, e.g. `quota.warning`. */
  events: string
  /** ISO-8601 UTC. */
  created_at: string
  /** ISO-8601 UTC when burrowd stopped sending to it, if it did. */
  disabled_at: Nullable<string>
  /** Why it was disabled, shown in the dashboard. */
  disabled_reason: Nullable<string>
  /** Deliveries that failed in a row since the last success. */
  consecutive_failures: ColumnType<number, number | undefined, number>
}

/** `webhook_deliveries`: one event for one endpoint; the outbox and the delivery log. */
export interface WebhookDeliveriesTable {
  /** `msg_` + random, or deterministic for `quota.warning`; the `webhook-id` header. */
  id: string
  endpoint_id: string
  account_id: string
  /** e.g. `quota.warning`. */
  type: string
  /** The JSON body sent, byte for byte on every attempt. */
  payload: string
  /** `pending`, `delivered`, `failed` (gave up) or `cancelled` (endpoint gone or disabled). */
  status: string
  attempts: ColumnType<number, number | undefined, number>
  /** ISO-8601 UTC of the next attempt while pending. */
  next_attempt_at: Nullable<string>
  /** ISO-8601 UTC of the last attempt, its HTTP status and error, for the delivery log. */
  last_attempt_at: Nullable<string>
  last_status: Nullable<number>
  last_error: Nullable<string>
  /** ISO-8601 UTC. */
  created_at: string
}

/** `quota_warnings`: one row per tunnel, metric and month for which `quota.warning` fired. */
export interface QuotaWarningsTable {
  tunnel_id: string
  /** `YYYY-MM`, UTC. */
  period: string
  metric: string
  /** ISO-8601 UTC. */
  created_at: string
}

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
