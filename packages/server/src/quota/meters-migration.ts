/**
 * Migration `006_meters_history`: the usage meters the billing page reads (a periodic snapshot
 * of the live counters, with the time it was taken) and the call history the edge records,
 * purged per the account's plan retention. Registered in `store/migrations.ts`.
 */

import type { ColumnType, Kysely, Migration } from 'kysely'

/** `usage_snapshots`: one metric of one tunnel in one month, as of `taken_at`. */
export interface UsageSnapshotsTable {
  /** `YYYY-MM`, UTC. */
  period: string
  tunnel_id: string
  /** `tool_calls` or `bandwidth_bytes`. */
  metric: string
  /** PostgreSQL returns `bigint` as a string, SQLite as a number. */
  value: ColumnType<number | string, number, number>
  /** ISO-8601 UTC of the snapshot that wrote this row. */
  taken_at: string
}

/** `call_history`: one JSON-RPC request that reached the edge for a tunnel. */
export interface CallHistoryTable {
  /** `call_` + random hex. */
  id: string
  tunnel_id: string
  /** ISO-8601 UTC when the request arrived. */
  at: string
  /** JSON-RPC method, e.g. `tools/call`. */
  method: string
  /** The tool's name for `tools/call`, else null. */
  tool: ColumnType<string | null, string | null | undefined, string | null>
  /** HTTP status answered to the agent. */
  status: number
  /** Refusal policy code when the edge refused it (`quota_exceeded`…), else null. */
  policy_code: ColumnType<string | null, string | null | undefined, string | null>
  /** Milliseconds from arrival to response head. */
  duration_ms: number
}

/** 006: meter snapshots and call history. */
export const metersMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('usage_snapshots')
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('tunnel_id', 'text', (c) => c.notNull())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .addColumn('taken_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_snapshots_pkey', ['period', 'tunnel_id', 'metric'])
      .execute()
    await db.schema
      .createTable('call_history')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('tool', 'text')
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('policy_code', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('call_history_tunnel_at')
      .on('call_history')
      .columns(['tunnel_id', 'at'])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('call_history').execute()
    await db.schema.dropTable('usage_snapshots').execute()
  },
}
