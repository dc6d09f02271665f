/**
 * The provider's event times at full precision (`billing/provider-time.ts`): microseconds since
 * the Unix epoch of each event recorded and of the newest change applied to a subscription,
 * beside the millisecond ISO-8601 text, which stays. Rows from before are left null and read as
 * the start of their millisecond.
 */
import type { Kysely, Migration } from 'kysely'

export const billingMicrosecondsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('billing_events').addColumn('occurred_at_us', 'bigint').execute()
    await db.schema.alterTable('subscriptions').addColumn('synced_at_us', 'bigint').execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('subscriptions').dropColumn('synced_at_us').execute()
    await db.schema.alterTable('billing_events').dropColumn('occurred_at_us').execute()
  },
}
