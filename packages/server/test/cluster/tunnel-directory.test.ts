// The tunnel directory in a real Redis: claims take increasing epochs, the newest wins, a
// fenced holder cannot refresh or release, entries expire without refreshes, and a holder whose
// entry Redis lost (restarted empty) writes it again unless a newer claim was made.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { TunnelDirectory } from '../../src/cluster/tunnel-directory.js'

const url = process.env.TEST_REDIS_URL

describe('TunnelDirectory', { skip: url ? false : 'needs TEST_REDIS_URL (a Redis server)' }, () => {
  let redis: Redis
  let dir: TunnelDirectory
  const prefix = `test:${randomUUID()}:`

  before(() => {
    redis = new Redis(url!)
    dir = new TunnelDirectory({ redis, keyPrefix: prefix, ttlMs: 300 })
  })

  after(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })

  it('lets the newest claim win and fences the older holder', async () => {
    const a = await dir.claim('tun_1', 'node-a', 'http://a')
    assert.deepEqual(await dir.lookup('tun_1'), { node: 'node-a', url: 'http://a', epoch: a })
    const b = await dir.claim('tun_1', 'node-b', 'http://b')
    assert.ok(b > a)
    assert.equal(
      await dir.refresh('tun_1', a, 'node-a', 'http://a'),
      'lost',
      'the old epoch is fenced',
    )
    await dir.release('tun_1', a)
    assert.equal((await dir.lookup('tun_1'))?.node, 'node-b', 'a stale release changes nothing')
    assert.equal(await dir.refresh('tun_1', b, 'node-b', 'http://b'), 'held')
    await dir.release('tun_1', b)
    assert.equal(await dir.lookup('tun_1'), null)
  })

  it('forgets a holder that stops refreshing, and epochs keep growing', async () => {
    const first = await dir.claim('tun_2', 'node-a', 'http://a')
    await new Promise((r) => setTimeout(r, 400))
    assert.equal(await dir.lookup('tun_2'), null)
    const second = await dir.claim('tun_2', 'node-b', 'http://b')
    assert.ok(second > first)
    await dir.release('tun_2', second)
    // The late holder's entry went, but a newer claim was made since: it is not written again.
    assert.equal(await dir.refresh('tun_2', first, 'node-a', 'http://a'), 'lost')
    assert.equal(await dir.lookup('tun_2'), null)
  })

  it('writes an entry Redis lost again, with its epoch, and keeps epochs growing', async () => {
    const epoch = await dir.claim('tun_3', 'node-a', 'http://a')
    // Redis restarted empty: the entry and the epoch counter are gone.
    await redis.del(`${prefix}dir:tun_3`, `${prefix}dir-epoch:tun_3`)
    assert.equal(await dir.refresh('tun_3', epoch, 'node-a', 'http://a'), 'restored')
    assert.deepEqual(await dir.lookup('tun_3'), { node: 'node-a', url: 'http://a', epoch })
    assert.equal(await dir.refresh('tun_3', epoch, 'node-a', 'http://a'), 'held')
    // The next claim still wins over the restored one.
    const next = await dir.claim('tun_3', 'node-b', 'http://b')
    assert.ok(next > epoch)
    assert.equal(await dir.refresh('tun_3', epoch, 'node-a', 'http://a'), 'lost')
  })

  it('gives a lost entry back to the newer holder when an older one restored it first', async () => {
    const older = await dir.claim('tun_4', 'node-a', 'http://a')
    const newer = await dir.claim('tun_4', 'node-b', 'http://b')
    await redis.del(`${prefix}dir:tun_4`, `${prefix}dir-epoch:tun_4`)
    // Node A missed B's claim (Redis was away when it was announced) and refreshes first.
    assert.equal(await dir.refresh('tun_4', older, 'node-a', 'http://a'), 'restored')
    assert.equal(await dir.refresh('tun_4', newer, 'node-b', 'http://b'), 'restored')
    assert.deepEqual(await dir.lookup('tun_4'), { node: 'node-b', url: 'http://b', epoch: newer })
    assert.equal(await dir.refresh('tun_4', older, 'node-a', 'http://a'), 'lost')
  })

  it('gives a claim made after Redis lost the counter an epoch past every earlier one', async () => {
    let before = 0
    for (let i = 0; i < 3; i++) before = await dir.claim('tun_6', 'node-a', 'http://a')
    assert.ok(Number.isSafeInteger(before))
    await redis.del(`${prefix}dir:tun_6`, `${prefix}dir-epoch:tun_6`)
    // A restart takes longer than the counter's lead over the clock (a claim or two a ms).
    while (redisMs(await redis.time()) <= before) await new Promise((r) => setTimeout(r, 1))
    const after = await dir.claim('tun_6', 'node-b', 'http://b')
    assert.ok(after > before, `${after} after ${before}`)
    assert.equal(await dir.refresh('tun_6', before, 'node-a', 'http://a'), 'lost')
    assert.ok((await dir.claim('tun_6', 'node-a', 'http://a')) > after)
  })

  it('lets the epoch counter of a tunnel no longer claimed expire', async () => {
    const counter = `${prefix}dir-epoch:tun_5`
    const epoch = await dir.claim('tun_5', 'node-a', 'http://a')
    assert.ok((await redis.pttl(counter)) > 0, 'a claim gives the counter an expiry')
    await redis.persist(counter)
    assert.equal(await dir.refresh('tun_5', epoch, 'node-a', 'http://a'), 'held')
    assert.ok((await redis.pttl(counter)) > 0, 'a refresh renews it')
    await redis.del(`${prefix}dir:tun_5`, counter)
    assert.equal(await dir.refresh('tun_5', epoch, 'node-a', 'http://a'), 'restored')
    assert.ok((await redis.pttl(counter)) > 0, 'a counter written again expires too')
    await dir.release('tun_5', epoch)
    assert.ok((await redis.pttl(counter)) > 0, 'the tunnel deleted, its counter goes in time')
  })
})

/** Redis's TIME in ms. */
function redisMs([secs = 0, micros = 0]: number[]): number {
  return Number(secs) * 1000 + Math.floor(Number(micros) / 1000)
}
