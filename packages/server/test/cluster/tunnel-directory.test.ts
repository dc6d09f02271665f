// The tunnel directory in a real Redis: claims take increasing epochs, the newest wins, a
// fenced holder cannot refresh or release, entries expire without refreshes.
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
    assert.equal(await dir.refresh('tun_1', a), false, 'the old epoch is fenced')
    await dir.release('tun_1', a)
    assert.equal((await dir.lookup('tun_1'))?.node, 'node-b', 'a stale release changes nothing')
    assert.equal(await dir.refresh('tun_1', b), true)
    await dir.release('tun_1', b)
    assert.equal(await dir.lookup('tun_1'), null)
  })

  it('forgets a holder that stops refreshing, and epochs keep growing', async () => {
    const first = await dir.claim('tun_2', 'node-a', 'http://a')
    await new Promise((r) => setTimeout(r, 400))
    assert.equal(await dir.lookup('tun_2'), null)
    assert.equal(await dir.refresh('tun_2', first), false)
    assert.ok((await dir.claim('tun_2', 'node-a', 'http://a')) > first)
  })
})
