/**
 * The usage-counter contract: one suite every implementation must pass, run against the memory
 * implementation on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set, and against
 * the Redis implementation (two nodes) when TEST_REDIS_URL is set. Then what only one of them
 * promises: the memory one loses nothing acknowledged across a restart; the Redis one's keys.
 *
 * Dates are in 2099 because the Redis implementation sets EXPIREAT from the injected clock, and
 * Redis deletes a key at once when that time is already past.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { createLogger, type Logger } from '@burrow/protocol'
import { MemoryUsageCounters } from '../../src/quota/memory-usage-counters.js'
import { RedisUsageCounters } from '../../src/quota/redis-usage-counters.js'
import type {
  UsageCounters,
  UsageMetric,
  UsageSnapshotEntry,
} from '../../src/quota/usage-counters.js'
import type { Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'
import {
  counterImplementations,
  deleteRedisKeys,
  openUsageStore,
  usageDb,
} from './usage-counter-subjects.js'
import type { CounterSubject } from './usage-counter-subjects.js'

const NOW = new Date('2099-03-10T12:00:00.000Z')
const clock = () => NOW
const MARCH_RESET = new Date('2099-04-01T00:00:00.000Z')
const CALLS: UsageMetric = 'tool_calls'
const BYTES: UsageMetric = 'bandwidth_bytes'

for (const implementation of counterImplementations()) {
  describe(`UsageCounters contract on ${implementation.name}`, () => {
    let subject: CounterSubject
    let counters: UsageCounters
    let peer: UsageCounters

    beforeEach(async () => {
      subject = await implementation.open(clock)
      counters = subject.counters
      peer = subject.peer
    })

    afterEach(async () => {
      await subject.close()
    })

    it('lets the call that reaches the limit pass and refuses the next without counting it', async () => {
      assert.deepEqual(await counters.consume('tun_a', CALLS, 99, 100), {
        allowed: true,
        value: 99,
        limit: 100,
        crossed80: true,
        period: '2099-03',
        resetsAt: MARCH_RESET,
      })
      const last = await counters.consume('tun_a', CALLS, 1, 100)
      assert.deepEqual([last.allowed, last.value, last.crossed80], [true, 100, false])
      const refused = await counters.consume('tun_a', CALLS, 1, 100)
      assert.deepEqual([refused.allowed, refused.value, refused.crossed80], [false, 100, false])
      assert.equal(await counters.get('tun_a', CALLS), 100)
      assert.equal(await peer.get('tun_a', CALLS), 100)
    })

    it('counts an amount whole or not at all', async () => {
      await counters.consume('tun_a', BYTES, 95, 100)
      const refused = await counters.consume('tun_a', BYTES, 10, 100)
      assert.deepEqual([refused.allowed, refused.value], [false, 95])
      const fits = await counters.consume('tun_a', BYTES, 5, 100)
      assert.deepEqual([fits.allowed, fits.value], [true, 100])
    })

    it('allows exactly the limit among 200 concurrent calls and warns exactly once', async () => {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? counters : peer).consume('tun_a', CALLS, 1, 100),
        ),
      )
      const allowed = results.filter((r) => r.allowed)
      assert.equal(allowed.length, 100)
      assert.deepEqual(
        allowed.map((r) => r.value).sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
      )
      assert.ok(results.filter((r) => !r.allowed).every((r) => r.value === 100))
      const warnings = results.filter((r) => r.crossed80)
      assert.deepEqual(
        warnings.map((r) => r.value),
        [80],
      )
      assert.equal(await counters.get('tun_a', CALLS), 100)
      assert.equal(await peer.get('tun_a', CALLS), 100)
    })

    it('adds past the limit for a response already streaming, then refuses new calls', async () => {
      assert.equal((await counters.consume('tun_a', BYTES, 70, 100)).crossed80, false)
      assert.deepEqual(await counters.add('tun_a', BYTES, 50, 100), {
        allowed: true,
        value: 120,
        limit: 100,
        crossed80: true,
        period: '2099-03',
        resetsAt: MARCH_RESET,
      })
      const refused = await counters.consume('tun_a', BYTES, 1, 100)
      assert.deepEqual([refused.allowed, refused.value, refused.crossed80], [false, 120, false])
      const more = await counters.add('tun_a', BYTES, 10, 100)
      assert.deepEqual([more.allowed, more.value, more.crossed80], [true, 130, false])
      assert.equal(await counters.get('tun_a', BYTES), 130)
    })

    it('reports crossed80 for exactly the increment that reaches 80% of the limit', async () => {
      const crossed = async (n: number) => (await counters.consume('tun_a', CALLS, n, 10)).crossed80
      assert.deepEqual(
        [await crossed(7), await crossed(1), await crossed(1), await crossed(1)],
        [false, true, false, false],
      )
      // Starting over below the threshold arms it again.
      await counters.set('tun_a', CALLS, 0)
      assert.equal(await crossed(9), true)
      // A limit of 0 allows nothing and never warns.
      assert.equal((await counters.consume('tun_b', CALLS, 1, 0)).allowed, false)
      assert.equal((await counters.add('tun_b', CALLS, 1, 0)).crossed80, false)
    })

    it('starts every counter again at 00:00 UTC on the 1st', async () => {
      const lastMoment = new Date('2099-03-31T23:59:59.999Z')
      const firstMoment = new Date('2099-04-01T00:00:00.000Z')
      await counters.consume('tun_a', CALLS, 100, 100, lastMoment)
      assert.equal((await counters.consume('tun_a', CALLS, 1, 100, lastMoment)).allowed, false)
      assert.deepEqual(await counters.consume('tun_a', CALLS, 1, 100, firstMoment), {
        allowed: true,
        value: 1,
        limit: 100,
        crossed80: false,
        period: '2099-04',
        resetsAt: new Date('2099-05-01T00:00:00.000Z'),
      })
      assert.equal(await peer.get('tun_a', CALLS, lastMoment), 100)
      assert.equal(await peer.get('tun_a', CALLS, firstMoment), 1)
      const december = await counters.add('tun_a', BYTES, 5, 10, new Date('2099-12-31T23:59:59Z'))
      assert.deepEqual(
        [december.period, december.resetsAt],
        ['2099-12', new Date('2100-01-01T00:00:00Z')],
      )
    })

    it('sets this month’s value for every node', async () => {
      await counters.consume('tun_a', CALLS, 50, 100)
      await counters.set('tun_a', CALLS, 95)
      assert.equal(await peer.get('tun_a', CALLS), 95)
      const rest = await peer.consume('tun_a', CALLS, 5, 100)
      assert.deepEqual([rest.allowed, rest.value, rest.crossed80], [true, 100, false])
      assert.equal((await counters.consume('tun_a', CALLS, 1, 100)).allowed, false)
      await counters.set('tun_a', CALLS, 0)
      assert.equal((await peer.consume('tun_a', CALLS, 1, 100)).value, 1)
      await counters.set('tun_a', CALLS, 7, new Date('2099-04-02T00:00:00Z'))
      assert.equal(await peer.get('tun_a', CALLS), 1)
      assert.equal(await peer.get('tun_a', CALLS, new Date('2099-04-30T23:00:00Z')), 7)
    })

    it('lists every counter of the month in the snapshot, sorted', async () => {
      await counters.consume('tun_b', CALLS, 1, 10)
      await peer.consume('tun_a', CALLS, 3, 10)
      await counters.add('tun_a', BYTES, 5_000_000_000, 100)
      await counters.set('tun_c', CALLS, 0)
      await counters.consume('tun_d', CALLS, 11, 10) // refused: no counter
      await counters.consume('tun_a', CALLS, 4, 10, new Date('2099-04-01T00:00:00Z'))
      const expected = [
        { tunnelId: 'tun_a', metric: BYTES, period: '2099-03', value: 5_000_000_000 },
        { tunnelId: 'tun_a', metric: CALLS, period: '2099-03', value: 3 },
        { tunnelId: 'tun_b', metric: CALLS, period: '2099-03', value: 1 },
        { tunnelId: 'tun_c', metric: CALLS, period: '2099-03', value: 0 },
      ]
      // Redis also lists the counters its seed of a month created at 0 (tun_d's, say); an
      // operator's 0 (tun_c's) is listed by both.
      const counted = (entries: readonly UsageSnapshotEntry[]) =>
        entries.filter((e) => e.value > 0 || (e.tunnelId === 'tun_c' && e.metric === CALLS))
      assert.deepEqual(counted(await counters.snapshot()), expected)
      assert.deepEqual(counted(await peer.snapshot(NOW)), expected)
      assert.deepEqual(counted(await counters.snapshot(new Date('2099-04-15T00:00:00Z'))), [
        { tunnelId: 'tun_a', metric: CALLS, period: '2099-04', value: 4 },
      ])
      assert.deepEqual(await counters.snapshot(new Date('2099-05-01T00:00:00Z')), [])
    })

    it('counts bytes of a Scale month exactly, past 2^32', async () => {
      const limit = 100_000_000_000
      await counters.consume('tun_a', BYTES, limit - 1, limit)
      assert.equal((await counters.consume('tun_a', BYTES, 2, limit)).allowed, false)
      assert.equal((await peer.consume('tun_a', BYTES, 1, limit)).value, limit)
      assert.equal(await counters.get('tun_a', BYTES), limit)
    })

    it('counts every demand of consumeAll or none of them', async () => {
      await counters.set('tun_a', CALLS, 99)
      const both = await counters.consumeAll('tun_a', [
        { metric: CALLS, n: 1, limit: 100, check: 'fits' },
        { metric: BYTES, n: 500, limit: 1000, check: 'below' },
      ])
      assert.equal(both.allowed, true)
      assert.equal(both.refusedBy, null)
      assert.deepEqual(
        both.results.map((r) => [r.allowed, r.value, r.limit, r.crossed80]),
        [
          [true, 100, 100, false],
          [true, 500, 1000, false],
        ],
      )
      // The tool call no longer fits: the bytes are not counted either.
      const refused = await peer.consumeAll('tun_a', [
        { metric: BYTES, n: 300, limit: 1000, check: 'below' },
        { metric: CALLS, n: 1, limit: 100, check: 'fits' },
      ])
      assert.equal(refused.allowed, false)
      assert.equal(refused.refusedBy, CALLS)
      assert.deepEqual(
        refused.results.map((r) => [r.allowed, r.value, r.crossed80]),
        [
          [false, 500, false],
          [false, 100, false],
        ],
      )
      assert.equal(await counters.get('tun_a', BYTES), 500)
      assert.equal(await counters.get('tun_a', CALLS), 100)
    })

    it('admits bytes while below the limit and counts them whole past it', async () => {
      const below = (n: number) =>
        counters.consumeAll('tun_a', [{ metric: BYTES, n, limit: 100, check: 'below' }])
      const first = await below(99)
      assert.deepEqual([first.allowed, first.results[0]?.crossed80], [true, true])
      const straddling = await below(50)
      assert.deepEqual([straddling.allowed, straddling.results[0]?.value], [true, 149])
      const after = await below(0)
      assert.deepEqual(
        [after.allowed, after.refusedBy, after.results[0]?.value],
        [false, BYTES, 149],
      )
      // A limit of 0 admits nothing, even an empty body.
      const none = await counters.consumeAll('tun_b', [
        { metric: BYTES, n: 0, limit: 0, check: 'below' },
      ])
      assert.equal(none.allowed, false)
    })

    it('allows exactly the limit among 200 concurrent two-metric demands', async () => {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0 ? counters : peer).consumeAll('tun_a', [
            { metric: BYTES, n: 10, limit: 1_000_000, check: 'below' },
            { metric: CALLS, n: 1, limit: 100, check: 'fits' },
          ]),
        ),
      )
      assert.equal(results.filter((r) => r.allowed).length, 100)
      assert.ok(results.filter((r) => !r.allowed).every((r) => r.refusedBy === CALLS))
      assert.equal(await peer.get('tun_a', CALLS), 100)
      assert.equal(await peer.get('tun_a', BYTES), 1000)
    })

    it('holds a limit across both metrics as soon as it is decided', async () => {
      await counters.set('tun_a', CALLS, 99)
      const demands = [
        { metric: CALLS, n: 1, limit: 100, check: 'fits' as const },
        { metric: BYTES, n: 10, limit: 1000, check: 'below' as const },
      ]
      const first = await counters.consumeAll('tun_a', demands)
      assert.equal(first.allowed, true)
      assert.deepEqual(
        first.results.map((r) => r.value),
        [100, 10],
      )
      const second = await peer.consumeAll('tun_a', demands)
      assert.equal(second.allowed, false)
      assert.equal(second.refusedBy, CALLS)
      assert.equal(await peer.get('tun_a', CALLS), 100)
      assert.equal(await peer.get('tun_a', BYTES), 10)
    })

    it('refuses malformed arguments with RangeError', async () => {
      await assert.rejects(counters.consume('tun_a', CALLS, -1, 10), RangeError)
      await assert.rejects(counters.consume('tun_a', CALLS, 1.5, 10), RangeError)
      await assert.rejects(counters.add('tun_a', CALLS, 1, Number.NaN), RangeError)
      await assert.rejects(counters.set('tun_a', CALLS, -5), RangeError)
      await assert.rejects(counters.get('tun:a', CALLS), RangeError)
      await assert.rejects(counters.get('tun_a', 'requests' as UsageMetric), RangeError)
      await assert.rejects(counters.consumeAll('tun_a', []), RangeError)
      await assert.rejects(
        counters.consumeAll('tun_a', [
          { metric: CALLS, n: 1, limit: 10, check: 'fits' },
          { metric: CALLS, n: 1, limit: 10, check: 'none' },
        ]),
        /twice/,
      )
      await assert.rejects(
        counters.consumeAll('tun_a', [
          { metric: CALLS, n: 1, limit: 10, check: 'maybe' as 'fits' },
        ]),
        RangeError,
      )
      assert.equal(await counters.get('tun_a', CALLS), 0)
    })

    it('refuses calls after close()', async () => {
      await counters.close()
      await assert.rejects(counters.consume('tun_a', CALLS, 1, 10), /closed/)
      await assert.rejects(counters.snapshot(), /closed/)
    })
  })
}

for (const backend of testBackends()) {
  describe(`MemoryUsageCounters durability on ${backend.name}`, () => {
    let database: TestDatabase
    const stores: Store[] = []
    const opened: UsageCounters[] = []

    /** Counters on a new connection to the test database, as a restarted burrowd opens them. */
    async function start(
      flushMs?: number,
      log?: Logger,
    ): Promise<{ store: Store; counters: MemoryUsageCounters }> {
      const store = await openUsageStore(database)
      stores.push(store)
      const counters = await MemoryUsageCounters.open(usageDb(store), {
        clock,
        ...(flushMs === undefined ? {} : { flushMs }),
        ...(log === undefined ? {} : { log }),
      })
      opened.push(counters)
      return { store, counters }
    }

    /** Close counters and store as a stopping burrowd does. */
    async function stop(started: { store: Store; counters: MemoryUsageCounters }): Promise<void> {
      await started.counters.close()
      await started.store.close()
      opened.splice(opened.indexOf(started.counters), 1)
      stores.splice(stores.indexOf(started.store), 1)
    }

    beforeEach(async () => {
      database = await backend.create()
    })

    afterEach(async () => {
      for (const counters of opened.splice(0)) await counters.close()
      for (const store of stores.splice(0)) await store.close()
      await database.drop()
    })

    it('has what was counted before an operator set in the database once the set resolves', async () => {
      const { store, counters } = await start(3_600_000)
      await Promise.all([
        counters.consume('tun_a', CALLS, 1, 100),
        counters.consume('tun_a', CALLS, 2, 100),
        counters.add('tun_a', BYTES, 7_000_000_000, 100),
        counters.set('tun_b', CALLS, 42),
      ])
      const rows = await usageDb(store)
        .selectFrom('usage_counters')
        .select(['tunnel_id', 'metric', 'value'])
        .orderBy('tunnel_id')
        .orderBy('metric')
        .execute()
      assert.deepEqual(
        rows.map((r) => [r.tunnel_id, r.metric, Number(r.value)]),
        [
          ['tun_a', BYTES, 7_000_000_000],
          ['tun_a', CALLS, 3],
          ['tun_b', CALLS, 42],
        ],
      )
      // A second process on the same database, while the first is never closed (a crash).
      const { counters: restarted } = await start()
      assert.equal(await restarted.get('tun_a', CALLS), 3)
      assert.equal(await restarted.get('tun_a', BYTES), 7_000_000_000)
      assert.equal(await restarted.get('tun_b', CALLS), 42)
    })

    /** The stored value of one counter of March 2099, or undefined without a row. */
    async function stored(store: Store, tunnelId: string, metric: UsageMetric) {
      const row = await usageDb(store)
        .selectFrom('usage_counters')
        .select('value')
        .where('tunnel_id', '=', tunnelId)
        .where('metric', '=', metric)
        .executeTakeFirst()
      return row === undefined ? undefined : Number(row.value)
    }

    /** Wait (up to 5 s) until `metric` of `tunnelId` is stored as `value`. */
    async function storedAs(store: Store, tunnelId: string, metric: UsageMetric, value: number) {
      const until = Date.now() + 5000
      while ((await stored(store, tunnelId, metric)) !== value) {
        if (Date.now() > until) assert.fail(`${tunnelId} ${metric} never stored as ${value}`)
        await sleep(10)
      }
    }

    it('counts at once and stores within flushMs, one write for what came meanwhile', async () => {
      const { store, counters } = await start(100)
      const results = await Promise.all([
        counters.consume('tun_a', CALLS, 1, 100),
        counters.consume('tun_a', CALLS, 1, 100),
        counters.add('tun_a', BYTES, 500, 10_000),
      ])
      assert.deepEqual(
        results.map((r) => r.value),
        [1, 2, 500],
      )
      // In force at once, not yet in the database: nobody waits for the write.
      assert.equal(await counters.get('tun_a', CALLS), 2)
      assert.equal(await stored(store, 'tun_a', CALLS), undefined)
      await storedAs(store, 'tun_a', CALLS, 2)
      assert.equal(await stored(store, 'tun_a', BYTES), 500)
      // A restart after a crash (the first process is never closed) has what was written.
      const { counters: restarted } = await start()
      assert.equal(await restarted.get('tun_a', CALLS), 2)
    })

    it('writes what is queued on close()', async () => {
      // Left alone they would wait an hour: close() must write them at once.
      const first = await start(3_600_000)
      await first.counters.add('tun_a', BYTES, 77, 10_000)
      await first.counters.consume('tun_a', CALLS, 5, 100)
      await stop(first)
      const { counters } = await start()
      assert.equal(await counters.get('tun_a', BYTES), 77)
      assert.equal(await counters.get('tun_a', CALLS), 5)
    })

    it('keeps enforcing across close() and a restart', async () => {
      const first = await start()
      await first.counters.consume('tun_a', CALLS, 100, 100)
      await stop(first)
      const { counters } = await start()
      assert.equal(await counters.get('tun_a', CALLS), 100)
      assert.deepEqual(await counters.snapshot(), [
        { tunnelId: 'tun_a', metric: CALLS, period: '2099-03', value: 100 },
      ])
      assert.equal((await counters.consume('tun_a', CALLS, 1, 100)).allowed, false)
    })

    it('keeps counting while the database refuses writes, and writes it all once it takes them', async () => {
      const lines: string[] = []
      const log = createLogger('info', (line) => lines.push(line))
      const { store, counters } = await start(20, log)
      await counters.consume('tun_a', CALLS, 3, 100)
      await storedAs(store, 'tun_a', CALLS, 3)
      await store.db.schema.alterTable('usage_counters').renameTo('usage_counters_off').execute()
      assert.equal((await counters.consume('tun_a', CALLS, 2, 100)).value, 5)
      assert.equal((await counters.add('tun_new', CALLS, 2, 100)).value, 2)
      // The first failed write is logged; the attempts after it (one every 20 ms) are not.
      const failed = () => lines.filter((l) => /writing to the database failed/.test(l))
      for (const end = Date.now() + 10_000; failed().length === 0 && Date.now() < end;)
        await sleep(10)
      await sleep(150)
      const failures = failed()
      assert.equal(failures.length, 1, lines.join('\n'))
      assert.match(failures[0]!, /the counts stay in force/)
      // Still enforced from memory.
      assert.equal(await counters.get('tun_a', CALLS), 5)
      assert.equal((await counters.consume('tun_a', CALLS, 96, 100)).allowed, false)
      await store.db.schema.alterTable('usage_counters_off').renameTo('usage_counters').execute()
      await storedAs(store, 'tun_a', CALLS, 5)
      assert.equal(await stored(store, 'tun_new', CALLS), 2)
      assert.ok(lines.some((l) => /works again/.test(l)))
      const { counters: restarted } = await start()
      assert.equal(await restarted.get('tun_a', CALLS), 5)
      assert.equal(await restarted.get('tun_new', CALLS), 2)
    })

    it('undoes an operator set the database refused, keeping the counts it replaced', async () => {
      const { store, counters } = await start(3_600_000)
      await counters.set('tun_a', CALLS, 10)
      await store.db.schema.alterTable('usage_counters').renameTo('usage_counters_off').execute()
      // Counted, not written yet (an hour to wait), then replaced by a set that cannot be written.
      assert.equal((await counters.consume('tun_a', CALLS, 1, 100)).value, 11)
      await assert.rejects(counters.set('tun_a', CALLS, 0), /writing to the database failed/)
      assert.equal(await counters.get('tun_a', CALLS), 11)
      await store.db.schema.alterTable('usage_counters_off').renameTo('usage_counters').execute()
      await counters.close()
      const { counters: restarted } = await start()
      assert.equal(await restarted.get('tun_a', CALLS), 11)
    })

    it('closes when the database refuses the last writes, and logs what is lost', async () => {
      const lines: string[] = []
      const { store, counters } = await start(
        3_600_000,
        createLogger('info', (line) => lines.push(line)),
      )
      await store.db.schema.alterTable('usage_counters').renameTo('usage_counters_off').execute()
      try {
        await counters.consume('tun_a', CALLS, 1, 100)
        await counters.close()
        assert.ok(
          lines.some((l) =>
            /1 counters could not be written before closing; these counts are lost: tun_a tool_calls 2099-03: 1 \(stored 0\)/.test(
              l,
            ),
          ),
          lines.join('\n'),
        )
      } finally {
        await store.db.schema.alterTable('usage_counters_off').renameTo('usage_counters').execute()
      }
    })

    it('reads an older month back from the database after moving on', async () => {
      const { counters } = await start()
      await counters.consume('tun_a', CALLS, 9, 100, new Date('2099-01-15T00:00:00Z'))
      await counters.consume('tun_a', CALLS, 1, 100, new Date('2099-02-15T00:00:00Z'))
      await counters.consume('tun_a', CALLS, 2, 100, new Date('2099-04-15T00:00:00Z'))
      await counters.consume('tun_a', CALLS, 3, 100, new Date('2099-05-15T00:00:00Z'))
      assert.equal(await counters.get('tun_a', CALLS, new Date('2099-01-31T00:00:00Z')), 9)
      assert.equal(
        (await counters.consume('tun_a', CALLS, 91, 100, new Date('2099-01-31T00:00:00Z'))).value,
        100,
      )
      assert.equal(await counters.get('tun_a', CALLS, new Date('2099-05-31T00:00:00Z')), 3)
    })
  })
}

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl) {
  describe('RedisUsageCounters keys', () => {
    const keyPrefix = `burrow-test-keys-${process.pid}:`
    let redis: Redis
    let counters: RedisUsageCounters

    beforeEach(() => {
      redis = new Redis(redisUrl)
      counters = new RedisUsageCounters(redis, { keyPrefix, clock })
    })

    afterEach(async () => {
      await counters.close()
      await redis.quit()
      await deleteRedisKeys(redisUrl, keyPrefix)
    })

    it('keeps q:<tunnel>:<YYYY-MM>:<metric> until a grace period after the month', async () => {
      const expiresAt = MARCH_RESET.getTime() / 1000 + 7 * 24 * 60 * 60
      await counters.consume('tun_a', CALLS, 3, 10)
      await counters.set('tun_a', BYTES, 12)
      const calls = `${keyPrefix}q:tun_a:2099-03:tool_calls`
      const bytes = `${keyPrefix}q:tun_a:2099-03:bandwidth_bytes`
      assert.deepEqual(await redis.mget(calls, bytes), ['3', '12'])
      assert.equal(await redis.call('EXPIRETIME', calls), expiresAt)
      assert.equal(await redis.call('EXPIRETIME', bytes), expiresAt)
    })

    it('leaves a connection it was given open on close()', async () => {
      await counters.close()
      assert.equal(await redis.ping(), 'PONG')
    })

    it('loads the script again after Redis forgot it', async () => {
      await counters.consume('tun_a', CALLS, 1, 10)
      await redis.script('FLUSH')
      assert.equal((await counters.consume('tun_a', CALLS, 1, 10)).value, 2)
    })
  })
}
