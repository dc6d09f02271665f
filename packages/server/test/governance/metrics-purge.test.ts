/**
 * Per-method metrics retention on SQLite always and PostgreSQL when TEST_DATABASE_URL is set:
 * 5-minute and hourly rows go after 48 hours, daily rows after 60 days, on every plan.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { purgeCallMetrics } from '../../src/governance/metrics-purge.js'
import { openStore } from '../../src/store/open-store.js'
import type { KyselyPlugin } from 'kysely'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-06-30T12:00:00.000Z')
const HOUR = 3_600_000

for (const backend of testBackends()) {
  describe(`call metrics retention on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'm@example.com', slug: 'metrics' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'm' })).tunnel.id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    async function row(span: '5m' | '1h' | '1d', hoursAgo: number, method: string, tool = '') {
      await store.db
        .insertInto('call_metrics')
        .values({
          tunnel_id: tunnelId,
          span,
          period_start: new Date(NOW.getTime() - hoursAgo * HOUR).toISOString(),
          method,
          tool,
          outcome: 'ok',
          count: 1,
        })
        .execute()
    }

    it('keeps 5-minute and hourly rows 48 hours and daily rows 60 days', async () => {
      await row('5m', 47, 'recent-5m')
      await row('5m', 49, 'old-5m')
      await row('1h', 47, 'recent-1h')
      await row('1h', 49, 'old-1h')
      await row('1h', 59 * 24, 'old-1h-month')
      await row('1d', 49, 'recent-1d')
      await row('1d', 59 * 24, 'month-old-1d')
      await row('1d', 61 * 24, 'old-1d')
      assert.equal(await purgeCallMetrics(store.db, NOW), 4)
      const left = await store.db
        .selectFrom('call_metrics')
        .select('method')
        .orderBy('method')
        .execute()
      assert.deepEqual(
        left.map((r) => r.method),
        ['month-old-1d', 'recent-1d', 'recent-1h', 'recent-5m'],
      )
      assert.equal(await purgeCallMetrics(store.db, NOW), 0, 'a second purge finds nothing')
    })

    it('deletes a backlog in statements of at most a batch, all of it', async () => {
      // One statement for all of it outlasted the database bound on every run (failing while the
      // database went on), and held the event loop on SQLite: as the history's purge.
      for (let i = 0; i < 7; i++) await row('5m', 49 + i, 'old-5m', `t${i}`)
      for (let i = 0; i < 3; i++) await row('1h', 49, 'old-1h', `t${i}`)
      for (let i = 0; i < 2; i++) await row('1d', 61 * 24, 'old-1d', `t${i}`)
      await row('5m', 47, 'recent-5m')
      await row('1h', 47, 'recent-1h')
      await row('1d', 49, 'recent-1d')
      const deleted: number[] = []
      const counting: KyselyPlugin = {
        transformQuery: (args) => args.node,
        async transformResult(args) {
          if (args.result.numAffectedRows !== undefined) {
            deleted.push(Number(args.result.numAffectedRows))
          }
          return args.result
        },
      }
      assert.equal(await purgeCallMetrics(store.db.withPlugin(counting), NOW, 3), 12)
      assert.ok(
        deleted.every((n) => n <= 3),
        `statements deleted ${deleted.join(', ')} rows`,
      )
      const left = await store.db.selectFrom('call_metrics').select('method').execute()
      assert.deepEqual(left.map((r) => r.method).sort(), ['recent-1d', 'recent-1h', 'recent-5m'])
      assert.equal(await purgeCallMetrics(store.db, NOW, 3), 0, 'a second purge finds nothing')
    })
  })
}
