/**
 * The usage rows of deleted tunnels on every test database, at an injected time: their counters,
 * meter snapshots and release notes of months that are over go, in bounded statements; those of
 * the month under way stay (the account's next tunnel carries them on), and so does every row of
 * a tunnel that still exists. The history purger does it once a month.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { HistoryPurger } from '../../src/quota/history-purge.js'
import { purgeDeletedTunnelsUsage } from '../../src/quota/usage-purge.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-10T12:00:00.000Z')
const PERIODS = ['2026-01', '2026-02', '2026-03'] as const
const METRICS = ['tool_calls', 'bandwidth_bytes'] as const

for (const backend of testBackends()) {
  describe(`usage rows of deleted tunnels on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let accountId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config, { now: () => NOW })
      // On Pro, every tunnel here serves: each one deleted leaves its month to the next new one.
      accountId = (
        await store.createAccount({ email: 'ann@example.com', slug: 'ann', plan: 'pro' })
      ).id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    /** A tunnel with counters and snapshots in January, February and March. */
    async function tunnelWithUsage(name: string): Promise<string> {
      const id = (await store.createTunnel({ accountId, name })).tunnel.id
      for (const period of PERIODS) {
        for (const metric of METRICS) {
          const row = { period, tunnel_id: id, metric, value: 7 }
          await store.db
            .insertInto('usage_counters')
            .values({ ...row, updated_at: NOW.toISOString() })
            .execute()
          await store.db
            .insertInto('usage_snapshots')
            .values({ ...row, taken_at: NOW.toISOString() })
            .execute()
        }
      }
      return id
    }

    /** Each table's rows as `tunnel period`, sorted (one per metric). */
    async function left(table: 'usage_counters' | 'usage_snapshots'): Promise<string[]> {
      const rows = await store.db.selectFrom(table).select(['tunnel_id', 'period']).execute()
      return rows.map((r) => `${r.tunnel_id} ${r.period}`).sort()
    }

    const twice = (rows: string[]) => rows.flatMap((r) => [r, r]).sort()

    it('drops the months that are over of deleted tunnels only, in bounded statements', async () => {
      const kept = await tunnelWithUsage('kept')
      const gone = await tunnelWithUsage('gone')
      const other = await tunnelWithUsage('other')
      await store.deleteTunnel(accountId, gone)
      await store.deleteTunnel(accountId, other)
      // A release note of February, as a tunnel deleted then left it.
      await store.db
        .insertInto('released_tunnels')
        .values({
          account_id: accountId,
          tunnel_id: 'tun_february',
          released_at: '2026-02-20T00:00:00.000Z',
        })
        .execute()

      const counts = await purgeDeletedTunnelsUsage(store.db, NOW, 3)
      assert.deepEqual(counts, { counters: 8, snapshots: 8, released: 1 })
      const expected = twice([
        ...PERIODS.map((p) => `${kept} ${p}`),
        `${gone} 2026-03`,
        `${other} 2026-03`,
      ])
      assert.deepEqual(await left('usage_counters'), expected)
      assert.deepEqual(await left('usage_snapshots'), expected)
      // The notes of tunnels deleted this month stay: the next tunnel takes the latest.
      const notes = await store.db.selectFrom('released_tunnels').select('tunnel_id').execute()
      assert.deepEqual(notes.map((n) => n.tunnel_id).sort(), [gone, other].sort())
      assert.deepEqual(await purgeDeletedTunnelsUsage(store.db, NOW, 3), {
        counters: 0,
        snapshots: 0,
        released: 0,
      })

      // The next tunnel still carries on the latest deleted one's month.
      const next = await store.createTunnelWithinPlan({
        accountId,
        name: 'next',
        subdomain: 'next',
      })
      assert.ok(next.carriesOn === gone || next.carriesOn === other, String(next.carriesOn))
    })

    it('is run by the history purger at start and in the first run of each month', async () => {
      const gone = await tunnelWithUsage('gone')
      await store.deleteTunnel(accountId, gone)
      let clock = NOW
      const purger = new HistoryPurger(store.db, {
        log: silentLogger,
        intervalMs: 3_600_000,
        clock: () => clock,
      })
      try {
        await purger.run()
        assert.deepEqual(await left('usage_counters'), twice([`${gone} 2026-03`]))
        clock = new Date('2026-04-01T00:10:00.000Z')
        await purger.run()
        assert.deepEqual(await left('usage_counters'), [])
        assert.deepEqual(await left('usage_snapshots'), [])
      } finally {
        await purger.close()
      }
    })
  })
}
