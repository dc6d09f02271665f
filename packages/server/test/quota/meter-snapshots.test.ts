/**
 * The usage meters' snapshots on every test database, with the live counters in memory and an
 * injected clock: a snapshot copies the month's counters and the time it was taken, the meters
 * lag until the next one, the first snapshot of a month completes the month before, and closing
 * takes a last one.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { MemoryUsageCounters } from '../../src/quota/memory-usage-counters.js'
import { MeterSnapshots, writeSnapshot } from '../../src/quota/meter-snapshots.js'
import { readMeters } from '../../src/quota/read-meters.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`meter snapshots on ${backend.name}`, () => {
    let now = new Date('2026-03-10T12:00:00.000Z')
    let database: TestDatabase
    let store: Store
    let counters: MemoryUsageCounters
    let snapshots: MeterSnapshots
    let accountId: string
    let tunnels: string[]

    beforeEach(async () => {
      now = new Date('2026-03-10T12:00:00.000Z')
      database = await backend.create()
      // Creation times a second apart, so the tunnels' order (oldest first) is theirs.
      let created = Date.parse('2026-01-01T00:00:00Z')
      store = await openStore(database.config, { now: () => new Date((created += 1000)) })
      const account = await store.createAccount({ email: 'm@example.com', slug: 'acme' })
      accountId = account.id
      tunnels = []
      for (const name of ['one', 'two']) {
        tunnels.push((await store.createTunnel({ accountId, name })).tunnel.id)
      }
      counters = await MemoryUsageCounters.open(store.db, { clock: () => now })
      snapshots = new MeterSnapshots(store.db, counters, {
        log: silentLogger,
        intervalMs: 3_600_000,
        clock: () => now,
      })
    })

    afterEach(async () => {
      await snapshots.close()
      await counters.close()
      await store.close()
      await database.drop()
    })

    it('shows the counters as of the last snapshot, with its time', async () => {
      const [one, two] = tunnels as [string, string]
      const empty = await readMeters(store.db, accountId, now)
      assert.deepEqual(empty, {
        period: '2026-03',
        takenAt: null,
        resetsAt: new Date('2026-04-01T00:00:00.000Z'),
        tunnels: [
          { tunnelId: one, toolCalls: 0, bandwidthBytes: 0 },
          { tunnelId: two, toolCalls: 0, bandwidthBytes: 0 },
        ],
      })

      await counters.consume(one, 'tool_calls', 7, 100)
      await counters.add(one, 'bandwidth_bytes', 6_000_000_000, 100)
      await snapshots.take()
      const taken = now
      await counters.consume(one, 'tool_calls', 3, 100)
      await counters.consume(two, 'tool_calls', 1, 100)
      now = new Date('2026-03-10T12:01:00.000Z')
      assert.deepEqual(await readMeters(store.db, accountId, now), {
        period: '2026-03',
        takenAt: taken,
        resetsAt: new Date('2026-04-01T00:00:00.000Z'),
        tunnels: [
          { tunnelId: one, toolCalls: 7, bandwidthBytes: 6_000_000_000 },
          { tunnelId: two, toolCalls: 0, bandwidthBytes: 0 },
        ],
      })
      await snapshots.take()
      const meters = await readMeters(store.db, accountId, now)
      assert.deepEqual(meters.takenAt, now)
      assert.deepEqual(
        meters.tunnels.map((t) => t.toolCalls),
        [10, 1],
      )
    })

    it('completes the month before with the first snapshot of a new month', async () => {
      const [one] = tunnels as [string]
      await counters.consume(one, 'tool_calls', 5, 100)
      await snapshots.take()
      now = new Date('2026-03-31T23:59:59.000Z')
      await counters.consume(one, 'tool_calls', 2, 100)
      now = new Date('2026-04-01T00:00:30.000Z')
      await counters.consume(one, 'tool_calls', 1, 100)
      await snapshots.take()
      const march = await readMeters(store.db, accountId, new Date('2026-03-20T00:00:00Z'))
      assert.equal(march.tunnels[0]?.toolCalls, 7)
      const april = await readMeters(store.db, accountId, now)
      assert.equal(april.period, '2026-04')
      assert.equal(april.tunnels[0]?.toolCalls, 1)
      assert.deepEqual(april.takenAt, now)
    })

    it("completes last month with a fresh node's first snapshot (found by a review)", async () => {
      // A node started (or restarted after a crash) in April never took a snapshot in March:
      // March's last counts stayed out of its meter for good.
      const [one] = tunnels as [string]
      now = new Date('2026-03-31T23:59:00.000Z')
      await counters.consume(one, 'tool_calls', 500, 1000)
      now = new Date('2026-04-01T00:05:00.000Z')
      const fresh = new MeterSnapshots(store.db, counters, {
        log: silentLogger,
        intervalMs: 3_600_000,
        clock: () => now,
      })
      await fresh.close()
      const march = await readMeters(store.db, accountId, new Date('2026-03-20T00:00:00Z'))
      assert.equal(march.tunnels[0]?.toolCalls, 500)

      // Counters that lost March (Redis restarted empty) do not lower its meter.
      await counters.set(one, 'tool_calls', 3, new Date('2026-03-31T23:59:00.000Z'))
      const again = new MeterSnapshots(store.db, counters, {
        log: silentLogger,
        intervalMs: 3_600_000,
        clock: () => now,
      })
      await again.close()
      const kept = await readMeters(store.db, accountId, new Date('2026-03-20T00:00:00Z'))
      assert.equal(kept.tunnels[0]?.toolCalls, 500)
    })

    it('keeps a newer snapshot another node wrote first (found by a review)', async () => {
      // Two nodes read the same counters a moment apart; the one that read first wrote last, and
      // its older, lower counts replaced the newer ones (and the meters' time went back).
      const [one] = tunnels as [string]
      const read = new Date('2026-03-10T12:00:00.000Z')
      const later = new Date('2026-03-10T12:00:01.000Z')
      const entry = { tunnelId: one, metric: 'tool_calls' as const, period: '2026-03' }
      await writeSnapshot(store.db, [{ ...entry, value: 150 }], later)
      await writeSnapshot(store.db, [{ ...entry, value: 100 }], read)
      const meters = await readMeters(store.db, accountId, later)
      assert.equal(meters.tunnels[0]?.toolCalls, 150)
      assert.deepEqual(meters.takenAt, later)
    })

    it('takes a last snapshot when closed', async () => {
      const [, two] = tunnels as [string, string]
      await counters.consume(two, 'tool_calls', 4, 100)
      await snapshots.close()
      const meters = await readMeters(store.db, accountId, now)
      assert.equal(meters.tunnels[1]?.toolCalls, 4)
      assert.deepEqual(meters.takenAt, now)
    })

    it('shows only the account’s own tunnels', async () => {
      const other = await store.createAccount({ email: 'o@example.com', slug: 'other' })
      const theirs = (await store.createTunnel({ accountId: other.id, name: 'x' })).tunnel.id
      await counters.consume(theirs, 'tool_calls', 9, 100)
      await snapshots.take()
      const mine = await readMeters(store.db, accountId, now)
      assert.deepEqual(
        mine.tunnels.map((t) => t.tunnelId),
        tunnels,
      )
      const none = await readMeters(store.db, 'acc_missing', now)
      assert.deepEqual(none.tunnels, [])
      const them = await readMeters(store.db, other.id, now)
      assert.deepEqual(them.tunnels, [{ tunnelId: theirs, toolCalls: 9, bandwidthBytes: 0 }])
    })
  })
}
