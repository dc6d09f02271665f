/**
 * Call-history retention on every test database, at an injected time: records older than each
 * account's effective plan allows (Free 24 hours, Pro 30 days, Scale 60 days) are purged, and a
 * downgrade or a lapsed paid period shortens retention from the next purge on.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import type { PlanId } from '../../src/plans.js'
import { CallHistoryWriter, type CallRecord } from '../../src/quota/call-history.js'
import { purgeCallHistory } from '../../src/quota/history-purge.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-10T12:00:00.000Z')
const HOUR = 60 * 60 * 1000

function record(tunnelId: string, overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    tunnelId,
    at: NOW,
    method: 'tools/call',
    tool: 'echo',
    status: 200,
    policyCode: null,
    durationMs: 1.6,
    ...overrides,
  }
}

for (const backend of testBackends()) {
  describe(`call-history retention on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let writer: CallHistoryWriter | null

    /** An account on `plan` with one tunnel; returns the tunnel id. */
    async function tunnelOn(slug: string, plan: PlanId): Promise<string> {
      const account = await store.createAccount({ email: `${slug}@example.com`, slug, plan })
      return (await store.createTunnel({ accountId: account.id, name: slug })).tunnel.id
    }

    const rows = () =>
      store.db.selectFrom('call_history').selectAll().orderBy('at').orderBy('method').execute()

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      writer = null
    })

    afterEach(async () => {
      await writer?.close()
      await store.close()
      await database.drop()
    })

    it('purges past each effective plan’s retention: 24 hours, 30 days, 60 days', async () => {
      const free = await tunnelOn('free', 'free')
      const pro = await tunnelOn('pro', 'pro')
      const scale = await tunnelOn('scale', 'scale')
      const ages = [23, 25, 29 * 24, 31 * 24, 59 * 24, 61 * 24]
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      for (const tunnelId of [free, pro, scale]) {
        for (const hours of ages) {
          writer.record(
            record(tunnelId, { at: new Date(NOW.getTime() - hours * HOUR), method: `${hours}h` }),
          )
        }
      }
      await writer.flush()
      const counts = await purgeCallHistory(store.db, NOW)
      assert.deepEqual(counts, { free: 5, pro: 3, scale: 1 })
      const left = async (tunnelId: string) =>
        (await rows())
          .filter((r) => r.tunnel_id === tunnelId)
          .map((r) => r.method)
          .sort()
      assert.deepEqual(await left(free), ['23h'])
      assert.deepEqual(await left(pro), ['23h', '25h', '696h'])
      assert.deepEqual(await left(scale), ['1416h', '23h', '25h', '696h', '744h'])
    })

    it('purges a backlog in batches, all of it, leaving what is kept', async () => {
      const free = await tunnelOn('backlog', 'free')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      // 23 records past retention, 3 within it; batches of 5 take five statements.
      for (let i = 0; i < 26; i++) {
        const hours = i < 23 ? 25 + i : 1
        writer.record(record(free, { at: new Date(NOW.getTime() - hours * HOUR) }))
      }
      await writer.flush()
      assert.deepEqual(await purgeCallHistory(store.db, NOW, 5), { free: 23, pro: 0, scale: 0 })
      assert.equal((await rows()).length, 3)
      // Nothing left to purge: a run deletes nothing, repeatedly.
      assert.deepEqual(await purgeCallHistory(store.db, NOW, 5), { free: 0, pro: 0, scale: 0 })
      // A backlog of exactly one batch ends too.
      for (let i = 0; i < 5; i++) {
        writer.record(record(free, { at: new Date(NOW.getTime() - (30 + i) * HOUR) }))
      }
      await writer.flush()
      assert.deepEqual(await purgeCallHistory(store.db, NOW, 5), { free: 5, pro: 0, scale: 0 })
      assert.equal((await rows()).length, 3)
    })

    it('shortens retention from the next purge after a downgrade', async () => {
      const lapsed = await tunnelOn('lapsed', 'scale')
      const cancelled = await tunnelOn('cancelled', 'pro')
      const downgraded = await tunnelOn('downgraded', 'scale')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      for (const tunnelId of [lapsed, cancelled, downgraded]) {
        for (const hours of [2, 48, 24 * 40]) {
          writer.record(record(tunnelId, { at: new Date(NOW.getTime() - hours * HOUR) }))
        }
      }
      await writer.flush()
      // Scale that ended an hour ago is Free now; Pro cancelled to end tomorrow is still Pro.
      const account = (slug: string) => store.db.updateTable('accounts').where('slug', '=', slug)
      await account('lapsed')
        .set({ plan_expires_at: new Date(NOW.getTime() - HOUR).toISOString() })
        .execute()
      await account('cancelled')
        .set({ plan_expires_at: new Date(NOW.getTime() + 24 * HOUR).toISOString() })
        .execute()
      await account('downgraded').set({ plan: 'pro' }).execute()
      assert.deepEqual(await purgeCallHistory(store.db, NOW), { free: 2, pro: 2, scale: 0 })
      const count = async (tunnelId: string) =>
        (await rows()).filter((r) => r.tunnel_id === tunnelId).length
      assert.equal(await count(lapsed), 1)
      assert.equal(await count(cancelled), 2)
      assert.equal(await count(downgraded), 2)
      // The day after, the cancelled Pro account is on Free too (and the lapsed one's last
      // record is past 24 hours).
      const later = new Date(NOW.getTime() + 25 * HOUR)
      assert.deepEqual(await purgeCallHistory(store.db, later), { free: 3, pro: 0, scale: 0 })
      assert.equal(await count(cancelled), 0)
      assert.equal(await count(lapsed), 0)
      assert.equal(await count(downgraded), 2)
    })
  })
}
