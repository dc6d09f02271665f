/**
 * Migration `003_usage_counters`: the durable side of the live usage counters. On a single node
 * `MemoryUsageCounters` writes every increment here before it is acknowledged (before the agent is
 * answered), and loads the current month from here on start. One row per tunnel, period and metric;
 * `value` is a 64-bit integer because bandwidth passes 2^31 bytes. No foreign key to `tunnels`: a
 * deleted tunnel must not make a batch of other tunnels' increments fail, and its final counts stay
 * for billing history. Registered in `migrate-to-latest.ts`; the tables' types are in
 * `store/schema.ts`.
 */

import { sql } from 'kysely'
import type { Kysely, Migration } from 'kysely'

/** 003: the `usage_counters` table. */
export const usageCountersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('usage_counters')
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('tunnel_id', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_counters_pkey', ['period', 'tunnel_id', 'metric'])
      .addCheckConstraint('usage_counters_value_check', sql`value >= 0`)
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('usage_counters').execute()
  },
}
