/**
 * A month Redis lost (restarted empty, evicted, failed over behind): found a hostile review,
 * every tunnel's month started again at 0 after a restart of the Redis of deploy/compose.yaml,
 * and the next snapshot lowered the billed meters. The counters now take such a month up again
 * from the last snapshot before they count, once however many calls find it missing, keeping
 * the higher of the two; and the snapshot seed reads what `writeSnapshot` wrote, on every
 * database.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { snapshotSeed, writeSnapshot } from '../../src/quota/meter-snapshots.js'
import { RedisUsageCounters, type UsageSeed } from '../../src/quota/redis-usage-counters.js'
import type { UsageMetric } from '../../src/quota/usage-counters.js'
import { openStore } from '../../src/store/open-store.js'
import { testBackends } from '../helpers/test-databases.js'
import { deleteRedisKeys } from './usage-counter-subjects.js'

const NOW = new Date('2099-03-10T12:00:00.000Z')
const clock = () => NOW
const CALLS: UsageMetric = 'tool_calls'
const BYTES: UsageMetric = 'bandwidth_bytes'
const redisUrl = process.env.TEST_REDIS_URL

describe(
  'RedisUsageCounters after Redis lost a month',
  { skip: !redisUrl && 'needs TEST_REDIS_URL' },
  () => {
    const keyPrefix = `burrow-test-seed-${process.pid}:`
    let redis: Redis
    let seeds: { tunnelId: string; period: string }[]
    let stored: Map<UsageMetric, number>
    const seed: UsageSeed = async (tunnelId, period) => {
      seeds.push({ tunnelId, period })
      await new Promise((r) => setTimeout(r, 20))
      return stored
    }
    const open = () => new RedisUsageCounters(redis, { keyPrefix, clock, seed })
    const loseEverything = () => deleteRedisKeys(redisUrl!, keyPrefix)

    beforeEach(() => {
      redis = new Redis(redisUrl!)
      seeds = []
      stored = new Map()
    })

    afterEach(async () => {
      await redis.quit()
      await loseEverything()
    })

    it('takes the month up from the snapshot before it counts, and enforces it', async () => {
      const counters = open()
      assert.equal((await counters.consume('tun_a', CALLS, 1, 100)).value, 1)
      assert.deepEqual(seeds, [{ tunnelId: 'tun_a', period: '2099-03' }], 'a new month is seeded')
      await loseEverything()
      stored = new Map([
        [CALLS, 100],
        [BYTES, 5000],
      ])
      const refused = await counters.consume('tun_a', CALLS, 1, 100)
      assert.equal(refused.allowed, false, 'the used-up month stays used up')
      assert.equal(await counters.get('tun_a', BYTES), 5000)
      assert.equal(seeds.length, 2)
    })

    it('seeds once however many calls find the month missing, and counts each of them', async () => {
      stored = new Map([[CALLS, 40]])
      const a = open()
      const b = open()
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).consume('tun_b', CALLS, 1, 1000)),
      )
      assert.ok(results.every((r) => r.allowed))
      assert.equal(await a.get('tun_b', CALLS), 100)
      // Each node seeds once; the second finds the first's counts higher and keeps them.
      assert.ok(seeds.length <= 2, `seeded ${seeds.length} times`)
    })

    it('keeps counts Redis has when they are higher than the snapshot (an upgrade)', async () => {
      await redis.set(`${keyPrefix}q:tun_c:2099-03:tool_calls`, '7')
      stored = new Map([[CALLS, 3]])
      assert.equal(await open().get('tun_c', CALLS), 7)
    })

    it('brings a lost month back before an operator sets one metric of it', async () => {
      stored = new Map([
        [CALLS, 90],
        [BYTES, 123],
      ])
      const counters = open()
      await counters.set('tun_d', CALLS, 0)
      assert.equal(await counters.get('tun_d', CALLS), 0, 'the operator’s value stands')
      assert.equal(await counters.get('tun_d', BYTES), 123, 'the other metric came back')
    })

    it('takes up a counter Redis evicted while the marker stayed (found by a review)', async () => {
      // Each key is evicted on its own: the month's marker stayed, the tool-call counter went,
      // and the next call counted from 0 (50 more calls of a used-up month, its meter lowered).
      const counters = open()
      assert.equal((await counters.consume('tun_f', CALLS, 50, 50)).value, 50)
      stored = new Map([[CALLS, 50]])
      await redis.del(`${keyPrefix}q:tun_f:2099-03:tool_calls`)
      assert.equal((await counters.consume('tun_f', CALLS, 1, 50)).allowed, false)
      assert.equal(await counters.get('tun_f', CALLS), 50)
      // A metric never counted was seeded at 0: its eviction is noticed the same way.
      stored = new Map([[BYTES, 700]])
      await redis.del(`${keyPrefix}q:tun_f:2099-03:bandwidth_bytes`)
      assert.equal(await counters.get('tun_f', BYTES), 700)
    })

    it('leaves an operator’s value made while another node was seeding (found by a review)', async () => {
      // Node a reads the snapshot (90) slowly; the operator's command seeds and sets 0 meanwhile;
      // a's seed then raised the counter back to 90.
      stored = new Map([[CALLS, 90]])
      let release = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      const slow = new RedisUsageCounters(redis, {
        keyPrefix,
        clock,
        seed: async () => {
          await held
          return new Map([[CALLS, 90]])
        },
      })
      const counting = slow.consume('tun_g', CALLS, 1, 1000)
      await open().set('tun_g', CALLS, 0)
      release()
      assert.equal((await counting).value, 1)
      assert.equal(await slow.get('tun_g', CALLS), 1)
    })

    it('without a seed, starts a lost month from what Redis has', async () => {
      const counters = new RedisUsageCounters(redis, { keyPrefix, clock })
      assert.equal((await counters.consume('tun_e', CALLS, 2, 10)).value, 2)
    })
  },
)

for (const backend of testBackends()) {
  describe(`snapshotSeed on ${backend.name}`, () => {
    it('reads the month’s snapshot of one tunnel, bytes past 2^32 exactly', async () => {
      const database = await backend.create()
      const store = await openStore(database.config)
      try {
        await writeSnapshot(
          store.db,
          [
            { tunnelId: 'tun_a', metric: CALLS, period: '2099-03', value: 12 },
            { tunnelId: 'tun_a', metric: BYTES, period: '2099-03', value: 2 ** 33 + 5 },
            { tunnelId: 'tun_b', metric: CALLS, period: '2099-03', value: 99 },
            { tunnelId: 'tun_a', metric: CALLS, period: '2099-02', value: 77 },
          ],
          NOW,
        )
        const read = await snapshotSeed(store.db)('tun_a', '2099-03')
        assert.deepEqual([...read].sort(), [
          [BYTES, 2 ** 33 + 5],
          [CALLS, 12],
        ])
        assert.equal((await snapshotSeed(store.db)('tun_z', '2099-03')).size, 0)
      } finally {
        await store.close()
        await database.drop()
      }
    })
  })
}
