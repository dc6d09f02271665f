/**
 * Lua scripts keep the order in which they were run on one connection, also after Redis lost its
 * script cache (a restart, a failover, SCRIPT FLUSH). They used to be run by SHA1 and sent whole
 * after a NOSCRIPT refusal: a script sent after one so refused, whose own SHA1 Redis knew again,
 * ran before it, so a session's renewal could land after its END and count the ended session
 * again. A redis-server of the test's own, whose cache the test empties.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { RedisScript } from '../../src/quota/redis-script.js'
import { RedisSessionTracker } from '../../src/quota/redis-session-tracker.js'
import { OwnRedis } from '../../../../test/helpers/own-redis.js'

const hasRedisServer = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some(existsSync)

const APPEND_X = new RedisScript(`return redis.call('RPUSH', KEYS[1], 'x')`)
const APPEND_Y = new RedisScript(`return redis.call('RPUSH', KEYS[1], 'y')`)

describe('Lua scripts on Redis', { skip: !hasRedisServer && 'no redis-server' }, () => {
  it('run in the order they were sent after the script cache was emptied', async () => {
    const server = await OwnRedis.start()
    const redis = new Redis(server.url)
    try {
      await APPEND_X.run(redis, ['warm'], [])
      await APPEND_Y.run(redis, ['warm'], [])
      await redis.script('FLUSH')
      // Another node's run loads the second script again before ours are sent.
      await APPEND_Y.run(redis, ['other'], [])
      const first = APPEND_X.run(redis, ['list'], [])
      const second = APPEND_Y.run(redis, ['list'], [])
      assert.deepEqual(await Promise.all([first, second]), [1, 2])
      assert.deepEqual(await redis.lrange('list', 0, -1), ['x', 'y'])
    } finally {
      redis.disconnect()
      await server.kill()
    }
  })

  it('refuse as Redis does a script that fails', async () => {
    const server = await OwnRedis.start()
    const redis = new Redis(server.url)
    try {
      const broken = new RedisScript(`return redis.call('NOSUCHCOMMAND')`)
      await assert.rejects(broken.run(redis, [], []), /Unknown Redis command|unknown command/i)
    } finally {
      redis.disconnect()
      await server.kill()
    }
  })

  it('leave a session ended when its renewal was sent just before the end', async () => {
    const server = await OwnRedis.start()
    const tracker = RedisSessionTracker.open(server.url, { idleMs: 300_000 })
    const admin = new Redis(server.url)
    try {
      const place = await tracker.reserve('tun_order', 3)
      assert.ok(place.ok)
      await tracker.open('tun_order', place.reservation, 'a', undefined, true)
      await tracker.end('tun_order', 'warm')
      await admin.script('FLUSH')
      await tracker.end('tun_order', 'other') // loads END again
      const renewed = tracker.hold('tun_order', 'a', 3, undefined, true)
      const ended = tracker.end('tun_order', 'a')
      await Promise.all([renewed, ended])
      assert.equal(await tracker.count('tun_order'), 0, 'the ended session holds no place')
    } finally {
      admin.disconnect()
      await tracker.close()
      await server.kill()
    }
  })
})
