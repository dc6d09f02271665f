/**
 * The metrics report on SQLite always and PostgreSQL when TEST_DATABASE_URL is set, over calls
 * recorded through `CallMetrics`: calls, errors and refusals by policy code per method and tool;
 * p50/p95/p99 of the answered calls as `latency-buckets.ts` computes them (never below the true
 * value, at most 25% above); the windows' edges (1 hour of 5-minute periods, 24 hours of hours, 30
 * UTC days); a series with every period, empty ones too; and nothing of another tunnel.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { CallMetrics } from '../../src/governance/call-metrics.js'
import { bucketOf, LATENCY_BUCKETS, percentileMs } from '../../src/governance/latency-buckets.js'
import { MAX_REPORTED_METHODS, metricsReport } from '../../src/governance/metrics-report.js'
import type { CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-02T12:02:00.000Z')
const MINUTE = 60_000
const ago = (ms: number) => new Date(NOW.getTime() - ms)

/** Answered latencies of `search` in the last hour: 1 … 10 ms, then two errors. */
const OK_MS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
const ERROR_MS = [50, 100]

for (const backend of testBackends()) {
  describe(`metrics report on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    let otherId: string
    let metrics: CallMetrics

    const call = (at: Date, over: Partial<CallRecord> = {}): CallRecord => ({
      tunnelId,
      at,
      method: 'tools/call',
      tool: 'search',
      status: 200,
      policyCode: null,
      durationMs: 5,
      ...over,
    })

    /** Record the calls of the scenario most tests read, and write them. */
    async function scenario() {
      for (const ms of OK_MS) metrics.record(call(ago(4 * MINUTE), { durationMs: ms }))
      for (const ms of ERROR_MS) {
        metrics.record(call(ago(MINUTE), { outcome: 'error', durationMs: ms }))
      }
      for (let i = 0; i < 3; i++) {
        metrics.record(
          call(ago(MINUTE), { status: 429, policyCode: 'rate_limited', outcome: 'refused' }),
        )
      }
      metrics.record(call(ago(MINUTE), { tool: 'shell', status: 403, policyCode: 'tool_denied' }))
      metrics.record(call(ago(32 * MINUTE), { method: 'tools/list', tool: null }))
      // Older than the hour, within the day; older than the day, within 30 days.
      metrics.record(call(ago(72 * MINUTE)))
      metrics.record(call(ago(3 * 24 * 60 * MINUTE)))
      metrics.record(call(ago(MINUTE), { tunnelId: otherId, tool: 'elsewhere' }))
      await metrics.flush()
    }

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'r@example.com', slug: 'report' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'r' })).tunnel.id
      otherId = (await store.createTunnel({ accountId: account.id, name: 'o' })).tunnel.id
      metrics = new CallMetrics(store.db, { log: silentLogger, flushMs: 3_600_000 })
    })

    afterEach(async () => {
      await metrics.close()
      await store.close()
      await database.drop()
    })

    it('reports an empty window with every period of its series at zero', async () => {
      const hour = await metricsReport(store.db, tunnelId, '1h', NOW)
      assert.equal(hour.span, '5m')
      assert.equal(hour.since, '2026-03-02T11:05:00.000Z')
      assert.deepEqual(hour.methods, [])
      assert.equal(hour.series.length, 12)
      assert.equal(hour.series[0]!.start, hour.since)
      assert.equal(hour.series[11]!.start, '2026-03-02T12:00:00.000Z')
      assert.ok(hour.series.every((p) => p.calls === 0 && p.errors === 0 && p.refused === 0))

      const day = await metricsReport(store.db, tunnelId, '24h', NOW)
      assert.equal(day.span, '1h')
      assert.equal(day.since, '2026-03-01T13:00:00.000Z')
      assert.equal(day.series.length, 24)
      const month = await metricsReport(store.db, tunnelId, '30d', NOW)
      assert.equal(month.span, '1d')
      assert.equal(month.since, '2026-02-01T00:00:00.000Z')
      assert.equal(month.series.length, 30)
      assert.equal(month.series[29]!.start, '2026-03-02T00:00:00.000Z')
    })

    it('counts calls, errors and refusals per method and tool over the last hour', async () => {
      await scenario()
      const report = await metricsReport(store.db, tunnelId, '1h', NOW)
      assert.deepEqual(
        report.methods.map((m) => [m.method, m.tool, m.calls, m.errors, m.refusals]),
        [
          ['tools/call', 'search', 15, 2, { rate_limited: 3 }],
          ['tools/call', 'shell', 1, 0, { tool_denied: 1 }],
          ['tools/list', null, 1, 0, {}],
        ],
      )
    })

    it('gives percentiles of the answered calls as the latency buckets do, within 25% above', async () => {
      await scenario()
      const [search] = (await metricsReport(store.db, tunnelId, '1h', NOW)).methods
      const counts = new Array<number>(LATENCY_BUCKETS).fill(0)
      for (const ms of [...OK_MS, ...ERROR_MS]) counts[bucketOf(ms)]!++
      assert.equal(search!.p50Ms, percentileMs(counts, 50))
      assert.equal(search!.p95Ms, percentileMs(counts, 95))
      assert.equal(search!.p99Ms, percentileMs(counts, 99))
      // The true values: the 6th of 12 sorted latencies, then the 12th twice. Refusals (0 ms)
      // are not latencies, or the p50 would fall.
      for (const [reported, truth] of [
        [search!.p50Ms, 6],
        [search!.p95Ms, 100],
        [search!.p99Ms, 100],
      ] as const) {
        assert.ok(
          reported !== null && reported >= truth && reported <= truth * 1.25,
          `${reported} for ${truth}`,
        )
      }
    })

    it('has no percentiles for a method that was only refused', async () => {
      await scenario()
      const report = await metricsReport(store.db, tunnelId, '1h', NOW)
      const shell = report.methods.find((m) => m.tool === 'shell')!
      assert.deepEqual([shell.p50Ms, shell.p95Ms, shell.p99Ms], [null, null, null])
    })

    it('puts each call in its period of the series, consistent with the totals', async () => {
      await scenario()
      const report = await metricsReport(store.db, tunnelId, '1h', NOW)
      const nonZero = report.series.filter((p) => p.calls > 0)
      assert.deepEqual(nonZero, [
        { start: '2026-03-02T11:30:00.000Z', calls: 1, errors: 0, refused: 0 },
        { start: '2026-03-02T11:55:00.000Z', calls: 10, errors: 0, refused: 0 },
        { start: '2026-03-02T12:00:00.000Z', calls: 6, errors: 2, refused: 4 },
      ])
      const calls = report.methods.reduce((n, m) => n + m.calls, 0)
      assert.equal(
        report.series.reduce((n, p) => n + p.calls, 0),
        calls,
      )
    })

    it('widens to the day of hourly rows and to 30 days of daily rows', async () => {
      await scenario()
      const search = async (window: '24h' | '30d') =>
        (await metricsReport(store.db, tunnelId, window, NOW)).methods.find(
          (m) => m.tool === 'search',
        )!.calls
      assert.equal(await search('24h'), 16)
      assert.equal(await search('30d'), 17)
      const day = await metricsReport(store.db, tunnelId, '24h', NOW)
      assert.equal(
        day.series.find((p) => p.start === '2026-03-02T12:00:00.000Z')!.calls,
        6,
        'the hourly series puts the calls of 12:01 at 12:00',
      )
      const month = await metricsReport(store.db, tunnelId, '30d', NOW)
      assert.deepEqual(
        month.series.filter((p) => p.calls > 0),
        [
          { start: '2026-02-27T00:00:00.000Z', calls: 1, errors: 0, refused: 0 },
          { start: '2026-03-02T00:00:00.000Z', calls: 18, errors: 2, refused: 4 },
        ],
        'the daily series puts each call in its UTC day',
      )
    })

    it('takes a period starting at the window’s edge and not the one before it', async () => {
      metrics.record(call(new Date('2026-03-02T11:05:00.000Z'), { tool: 'inside' }))
      metrics.record(call(new Date('2026-03-02T11:04:59.999Z'), { tool: 'outside' }))
      await metrics.flush()
      const report = await metricsReport(store.db, tunnelId, '1h', NOW)
      assert.deepEqual(
        report.methods.map((m) => m.tool),
        ['inside'],
      )
      assert.equal(report.series[0]!.calls, 1)
    })

    it('lists only the busiest method and tool pairs, however many agents invented', async () => {
      for (let i = 0; i < 3; i++) metrics.record(call(ago(MINUTE), { tool: 'busy' }))
      for (let i = 0; i < MAX_REPORTED_METHODS + 100; i++) {
        metrics.record(call(ago(MINUTE), { method: `x/${i}`, tool: null }))
      }
      await metrics.flush()
      const report = await metricsReport(store.db, tunnelId, '1h', NOW)
      assert.equal(report.methods.length, MAX_REPORTED_METHODS)
      assert.deepEqual(report.methods[0], {
        method: 'tools/call',
        tool: 'busy',
        calls: 3,
        errors: 0,
        refusals: {},
        p50Ms: report.methods[0]!.p50Ms,
        p95Ms: report.methods[0]!.p95Ms,
        p99Ms: report.methods[0]!.p99Ms,
      })
      const total = report.series.reduce((n, p) => n + p.calls, 0)
      assert.equal(total, 3 + MAX_REPORTED_METHODS + 100, 'the series counts every call')
    })

    it('shows nothing of another tunnel', async () => {
      await scenario()
      const other = await metricsReport(store.db, otherId, '1h', NOW)
      assert.deepEqual(
        other.methods.map((m) => [m.tool, m.calls]),
        [['elsewhere', 1]],
      )
      const report = await metricsReport(store.db, tunnelId, '30d', NOW)
      assert.ok(report.methods.every((m) => m.tool !== 'elsewhere'))
    })
  })
}
