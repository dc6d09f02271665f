/**
 * Migration `005_billing`: subscriptions bought through the payment provider and the provider's
 * webhook events already processed. The account row carries the effective result: `plan`, and
 * `plan_expires_at` after which the plan is Free even if no webhook arrives (a cancelled
 * subscription keeps paid limits until its period ends). Registered in `store/migrations.ts`.
 */

import type { ColumnType, Kysely, Migration } from 'kysely'

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** Columns 005 adds to `accounts`. */
export interface AccountsBillingColumns {
  /** ISO-8601 UTC; from then on the account is on Free whatever `plan` says. Null: no end. */
  plan_expires_at: Nullable<string>
}

/** `subscriptions`: an account's subscription at the provider, as last synchronised. */
export interface SubscriptionsTable {
  account_id: string
  /** `paddle`, or `dev` for the local stand-in (which speaks Paddle's API too). */
  provider: string
  /** The provider's subscription id (`sub_…`). */
  subscription_id: string
  /** The provider's customer id (`ctm_…`), if known. */
  customer_id: Nullable<string>
  /** The `PlanId` bought: `pro` or `scale`. */
  plan: string
  /** `monthly` or `annual`. */
  cycle: string
  /** The provider's status as sent (`active`, `trialing`, `past_due`, `paused`, `canceled`). */
  status: string
  /** Internal state: `paid`, `paid_until` (cancelled, limits kept to `ends_at`), `past_due`, `free`. */
  state: string
  /** ISO-8601 UTC end of the current billing period, if any. */
  period_ends_at: Nullable<string>
  /** ISO-8601 UTC when a scheduled cancellation takes effect, if any. */
  cancels_at: Nullable<string>
  /** `occurred_at` of the newest event applied: older events no longer change anything. */
  synced_at: string
  /** ISO-8601 UTC of the last write. */
  updated_at: string
}

/** `billing_events`: every provider webhook event processed, so duplicates are recognised. */
export interface BillingEventsTable {
  provider: string
  /** The provider's event id (`evt_…`). */
  event_id: string
  /** e.g. `subscription.updated`. */
  type: string
  /** ISO-8601 UTC, the provider's `occurred_at`. */
  occurred_at: string
  /** ISO-8601 UTC, when burrowd received it. */
  received_at: string
  account_id: Nullable<string>
  /**
   * `applied`, `stale` (older than what was applied), `ignored` (not about a plan, or about a
   * subscription the account has replaced) or `unknown_account` (names no account of ours).
   */
  outcome: string
}

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
