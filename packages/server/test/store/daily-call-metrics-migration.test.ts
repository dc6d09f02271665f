/**
 * Migration 032 on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: the daily rows it
 * makes from the hourly rows kept sum them per UTC day, tunnel, method, tool and outcome, counts
 * and latency buckets alike; a day's pairs past its 1,000 busiest are summed under `(other)`; a
 * 5-minute row adds nothing (its calls are in the hourly rows already).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { MAX_PAIRS_PER_DAY, OTHER } from '../../src/governance/call-metrics.js'
import { dailyCallMetricsMigration } from '../../src/store/migrations/032-daily-call-metrics.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`daily call metrics from hourly ones on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    let otherId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'd@example.com', slug: 'daily' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'd' })).tunnel.id
      otherId = (await store.createTunnel({ accountId: account.id, name: 'e' })).tunnel.id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const row = (
      span: string,
      start: string,
      tool: string,
      count: number,
      over: Record<string, string | number> = {},
    ) => ({
      tunnel_id: tunnelId,
      span,
      period_start: start,
      method: 'tools/call',
      tool,
      outcome: 'ok',
      count,
      h3: count,
      h9: 0,
      ...over,
    })

    const daily = async () =>
      (
        await store.db
          .selectFrom('call_metrics')
          .select(['tunnel_id', 'period_start', 'tool', 'outcome', 'count', 'h3', 'h9'])
          .where('span', '=', '1d')
          .execute()
      )
        .map((r) => [
          r.tunnel_id === tunnelId ? 't' : 'o',
          r.period_start,
          r.tool,
          r.outcome,
          Number(r.count),
          Number(r.h3),
          Number(r.h9),
        ])
        .sort((a, b) => a.join(' ').localeCompare(b.join(' ')))

    it('sums the hourly rows of each UTC day, buckets too, and nothing of 5 minutes', async () => {
      await store.db
        .insertInto('call_metrics')
        .values([
          row('1h', '2026-03-01T23:00:00.000Z', 'search', 2),
          row('1h', '2026-03-02T00:00:00.000Z', 'search', 3),
          row('1h', '2026-03-02T13:00:00.000Z', 'search', 4, { h9: 1 }),
          row('1h', '2026-03-02T13:00:00.000Z', 'search', 1, { outcome: 'error' }),
          row('1h', '2026-03-02T13:00:00.000Z', 'search', 6, { tunnel_id: otherId }),
          row('5m', '2026-03-02T13:05:00.000Z', 'search', 4),
        ])
        .execute()
      await dailyCallMetricsMigration.up(store.db)
      assert.deepEqual(await daily(), [
        ['o', '2026-03-02T00:00:00.000Z', 'search', 'ok', 6, 6, 0],
        ['t', '2026-03-01T00:00:00.000Z', 'search', 'ok', 2, 2, 0],
        ['t', '2026-03-02T00:00:00.000Z', 'search', 'error', 1, 1, 0],
        ['t', '2026-03-02T00:00:00.000Z', 'search', 'ok', 7, 7, 1],
      ])
    })

    it("names a day's busiest pairs and sums the rest under (other)", async () => {
      // Every pair once in one hour; the last 5 pairs twice more, another hour, a busier day.
      const start = (h: number) => `2026-03-02T${String(h).padStart(2, '0')}:00:00.000Z`
      const pairs = MAX_PAIRS_PER_DAY + 5
      const rows = Array.from({ length: pairs }, (_, i) => row('1h', start(1), `t${i}`, 1))
      for (let i = pairs - 5; i < pairs; i++) rows.push(row('1h', start(2), `t${i}`, 2))
      for (let i = 0; i < rows.length; i += 200) {
        await store.db
          .insertInto('call_metrics')
          .values(rows.slice(i, i + 200))
          .execute()
      }
      await dailyCallMetricsMigration.up(store.db)
      const days = await daily()
      assert.equal(days.length, MAX_PAIRS_PER_DAY + 1)
      const other = days.find((r) => r[2] === OTHER)
      // The busiest 5, then 995 of the others (by name); 5 of once-called pairs fold.
      assert.deepEqual(other, ['t', '2026-03-02T00:00:00.000Z', OTHER, 'ok', 5, 5, 0])
      assert.equal(days.find((r) => r[2] === `t${pairs - 1}`)?.[4], 3)
      const total = days.reduce((n, r) => n + Number(r[4]), 0)
      assert.equal(total, pairs + 10, 'every call counted once')
    })
  })
}
