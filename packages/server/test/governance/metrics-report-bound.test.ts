/**
 * The rows a metrics report reads are bounded by its window's periods, not by the rows a tunnel
 * holds, on SQLite always and PostgreSQL when TEST_DATABASE_URL is set. The setup writes what an
 * agent calling a public tunnel with 1,000 invented tool names an hour leaves: 720,000 hourly
 * rows over 30 days (as burrowd wrote them before daily rows, until the purge takes them), a
 * day's bound of pairs per daily row for 60 days, and 5-minute rows for 3 hours. Each report
 * then makes two statements, and reads (PostgreSQL: the rows its plan's scans of `call_metrics`
 * produced or filtered out, `explain analyze`; SQLite, which counts no rows: each scan searches
 * the primary key for the window's periods of one span, times the rows of those periods) at most
 * three passes over its periods' rows: the 500 busiest pairs, their sums, the series.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  CompiledQuery,
  createQueryId,
  sql,
  type Kysely,
  type KyselyPlugin,
  type RootOperationNode,
} from 'kysely'
import { MAX_PAIRS_PER_DAY, SPANS, type Span } from '../../src/governance/call-metrics.js'
import {
  metricsReport,
  WINDOW_SPANS,
  type MetricWindow,
} from '../../src/governance/metrics-report.js'
import { openStore } from '../../src/store/open-store.js'
import type { Database } from '../../src/store/schema.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-02T12:02:00.000Z')
/** Periods of each window's series, and so of the rows it may read per pair. */
const PERIODS: Record<MetricWindow, number> = { '1h': 12, '24h': 24, '30d': 30 }

/** The ISO starts of `count` periods of `span`, the last holding `NOW`. */
function starts(span: Span, count: number): string[] {
  const last = Math.floor(NOW.getTime() / SPANS[span]) * SPANS[span]
  return Array.from({ length: count }, (_, i) => new Date(last - i * SPANS[span]).toISOString())
}

/** Rows read by the scans of `call_metrics` in a PostgreSQL plan (`explain analyze`, JSON). */
function pgRowsRead(node: Record<string, unknown>): number {
  let rows = 0
  if (node['Relation Name'] === 'call_metrics') {
    const per =
      Number(node['Actual Rows'] ?? 0) +
      Number(node['Rows Removed by Filter'] ?? 0) +
      Number(node['Rows Removed by Index Recheck'] ?? 0)
    rows += per * Number(node['Actual Loops'] ?? 1)
  }
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) {
    rows += pgRowsRead(child)
  }
  return rows
}

for (const backend of testBackends()) {
  describe(`metrics report reads on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string

    /** Insert `names` rows (one outcome each) for every period in `periods` of `span`. */
    async function hostile(span: Span, periods: string[], names: number) {
      // 24 periods a statement: one of 720,000 rows outlasts PostgreSQL's statement bound.
      for (let i = 0; i < periods.length; i += 24) {
        await hostilePeriods(span, periods.slice(i, i + 24), names)
      }
    }

    async function hostilePeriods(span: Span, periods: string[], names: number) {
      const values = sql.join(periods.map((p) => sql`(${p})`))
      await sql`
        with recursive n(i) as (select 0 union all select i + 1 from n where i < ${names - 1}),
          p(start) as (values ${values})
        insert into call_metrics (tunnel_id, span, period_start, method, tool, outcome, count)
        select ${tunnelId}, ${span}, p.start, 'tools/call', p.start || '-' || n.i,
          'tool_denied', 1
        from p cross join n
      `.execute(store.db)
    }

    /** The statements `report` makes, and the rows they read of `call_metrics`. */
    async function reads(
      window: MetricWindow,
    ): Promise<{ statements: number; rows: number; plans: string[] }> {
      const nodes: RootOperationNode[] = []
      const capture: KyselyPlugin = {
        transformQuery: (args) => (nodes.push(args.node), args.node),
        transformResult: async (args) => args.result,
      }
      await metricsReport(store.db.withPlugin(capture), tunnelId, window, NOW)
      let rows = 0
      const plans: string[] = []
      for (const node of nodes) {
        const q = store.db.getExecutor().compileQuery(node, createQueryId())
        if (backend.name === 'postgres') {
          const explained = await store.db.executeQuery<Record<string, unknown>>(
            CompiledQuery.raw(`explain (analyze, format json) ${q.sql}`, [...q.parameters]),
          )
          const plan = explained.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[]
          rows += pgRowsRead(plan[0]!.Plan)
        } else {
          rows += await sqliteRowsRead(store.db, q, window, plans)
        }
      }
      return { statements: nodes.length, rows, plans }
    }

    /** Each scan of `call_metrics` must search one span's range from the window's start. */
    async function sqliteRowsRead(
      db: Kysely<Database>,
      q: CompiledQuery,
      window: MetricWindow,
      plans: string[],
    ): Promise<number> {
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
      )
      const scans = plan.rows.map((r) => r.detail).filter((d) => /call_metrics/.test(d))
      plans.push(...scans)
      for (const scan of scans) {
        assert.match(
          scan,
          /^SEARCH \w+ USING (PRIMARY KEY|INDEX sqlite_autoindex_call_metrics_1) \(tunnel_id=\? AND span=\? AND period_start=\?/,
        )
      }
      const span = WINDOW_SPANS[window]
      const since = starts(span, PERIODS[window]).at(-1)!
      const inRange = await db
        .selectFrom('call_metrics')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tunnel_id', '=', tunnelId)
        .where('span', '=', span)
        .where('period_start', '>=', since)
        .executeTakeFirstOrThrow()
      return scans.length * Number(inRange.n)
    }

    before(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'h@example.com', slug: 'hostile' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'h' })).tunnel.id
      await hostile('1h', starts('1h', 720), 1000)
      await hostile('1d', starts('1d', 60), MAX_PAIRS_PER_DAY + 1)
      await hostile('5m', starts('5m', 36), MAX_PAIRS_PER_DAY + 1)
      // Statistics as autovacuum would gather them: with them, PostgreSQL costed a range of
      // `period_start` over all spans and chose to read the whole table.
      if (backend.name === 'postgres') await sql`analyze call_metrics`.execute(store.db)
    })

    after(async () => {
      await store.close()
      await database.drop()
    })

    it('holds the hostile volume the setup meant to write', async () => {
      const held = await store.db
        .selectFrom('call_metrics')
        .select(['span', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('span')
        .orderBy('span')
        .execute()
      assert.deepEqual(
        held.map((r) => [r.span, Number(r.n)]),
        [
          ['1d', 60 * (MAX_PAIRS_PER_DAY + 1)],
          ['1h', 720_000],
          ['5m', 36 * (MAX_PAIRS_PER_DAY + 1)],
        ],
      )
    })

    for (const window of ['1h', '24h', '30d'] as const) {
      it(`reads at most 3 × ${PERIODS[window]} periods × the pairs a day may name, for ${window}`, async () => {
        const { statements, rows, plans } = await reads(window)
        assert.equal(statements, 2)
        // The bound's pairs and `(other)`, of the one outcome the setup wrote.
        const bound = 3 * PERIODS[window] * (MAX_PAIRS_PER_DAY + 1)
        assert.ok(rows > 0, 'the report read its rows')
        assert.ok(rows <= bound, `${rows} rows read, past ${bound}: ${plans.join(' | ')}`)
        const report = await metricsReport(store.db, tunnelId, window, NOW)
        assert.equal(report.series.length, PERIODS[window])
        const names = WINDOW_SPANS[window] === '1h' ? 1000 : MAX_PAIRS_PER_DAY + 1
        const refused = report.series.reduce((n, p) => n + p.refused, 0)
        assert.equal(refused, PERIODS[window] * names, 'every call of the window counted once')
      })
    }
  })
}
