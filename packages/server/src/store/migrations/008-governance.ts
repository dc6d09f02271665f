/**
 * Migration `008_governance`: each tunnel's governance policy and its versions (who changed what,
 * when); call history grows the exchange's details (session or agent, outcome, bytes, the
 * redacted request and response bodies, each cut and marked when cut); per-method metrics are
 * rows per tunnel, period, method, tool and outcome, with a count and latency buckets that add up
 * across nodes (`governance/latency-buckets.ts`): 5-minute periods (`span` 5m, kept two days) for
 * the last hour and day, hours (`span` 1h) for the last 30 days. Registered in `migrate-to-latest.ts`; the
 * tables' types are in `store/schema.ts`.
 */
import type { Kysely, Migration } from 'kysely'

/** Latency bucket columns of `call_metrics`: h0 … h63. */
export const METRIC_BUCKET_COLUMNS: readonly string[] = Array.from(
  { length: 64 },
  (_, i) => `h${i}`,
)

/** 008: policies, their versions, call details and per-method metrics. */
export const governanceMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('tunnel_policies')
      .addColumn('tunnel_id', 'text', (c) =>
        c.primaryKey().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('policy_versions')
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'text', (c) => c.notNull())
      .addColumn('changed_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('policy_versions_pkey', ['tunnel_id', 'version'])
      .execute()
    for (const [name, type] of [
      ['session_id', 'text'],
      ['rpc_id', 'text'],
      ['outcome', 'text'],
      ['bytes_in', 'integer'],
      ['bytes_out', 'integer'],
      ['request_body', 'text'],
      ['response_body', 'text'],
      ['bodies_cut', 'integer'],
    ] as const) {
      await db.schema.alterTable('call_history').addColumn(name, type).execute()
    }
    let metrics = db.schema
      .createTable('call_metrics')
      .addColumn('tunnel_id', 'text', (c) =>
        c.notNull().references('tunnels.id').onDelete('cascade'),
      )
      .addColumn('span', 'text', (c) => c.notNull())
      .addColumn('period_start', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('tool', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
    for (const column of METRIC_BUCKET_COLUMNS) {
      metrics = metrics.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
    }
    await metrics
      .addPrimaryKeyConstraint('call_metrics_pkey', [
        'tunnel_id',
        'span',
        'period_start',
        'method',
        'tool',
        'outcome',
      ])
      .execute()
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('call_metrics').execute()
    for (const name of [
      'bodies_cut',
      'response_body',
      'request_body',
      'bytes_out',
      'bytes_in',
      'outcome',
      'rpc_id',
      'session_id',
    ]) {
      await db.schema.alterTable('call_history').dropColumn(name).execute()
    }
    await db.schema.dropTable('policy_versions').execute()
    await db.schema.dropTable('tunnel_policies').execute()
  },
}
