/**
 * A command whose reply a dropped connection lost (Redis ran it) fails at once with
 * `RedisReplyLostError`, and is not sent again once the connection is back: ioredis sent it
 * again, and an INCR so counted twice. A real Redis (TEST_REDIS_URL) behind a proxy that drops
 * the connection before one reply.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { openRedis } from '../../src/store/open-redis.js'
import { mayHaveRun, RedisReplyLostError } from '../../src/store/redis-reply-lost.js'
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/store/redis-options.js'
import {
  startReplyDroppingProxy,
  type ReplyDroppingProxy,
} from '../helpers/reply-dropping-proxy.js'

const url = process.env.TEST_REDIS_URL

describe('mayHaveRun', () => {
  it('is true of a lost reply and a timeout, also as a cause, and false of a command never sent', () => {
    assert.ok(mayHaveRun(new RedisReplyLostError('incr')))
    assert.ok(mayHaveRun(new Error('Command timed out')))
    assert.ok(mayHaveRun(new Error('setting failed', { cause: new RedisReplyLostError('exec') })))
    for (const message of ['Connection is closed.', 'Reached the max retries per request limit']) {
      assert.equal(mayHaveRun(new Error(message)), false, message)
    }
  })
})

describe('openRedis when a reply is lost', { skip: !url && 'no TEST_REDIS_URL' }, () => {
  let proxy: ReplyDroppingProxy
  let direct: Redis
  const key = `burrow-test-${randomBytes(6).toString('hex')}:n`

  before(async () => {
    const { hostname, port } = new URL(url!)
    proxy = await startReplyDroppingProxy(hostname, Number(port || 6379))
    direct = new Redis(url!)
  })

  after(async () => {
    await direct.del(key)
    direct.disconnect()
    await proxy.close()
  })

  it('fails the command with RedisReplyLostError, not its timeout, and runs it once', async () => {
    // A timeout far longer than the test: a failure that waited for it would not be this error.
    const redis = openRedis(proxy.url, { commandTimeout: 100 * REDIS_COMMAND_TIMEOUT_MS })
    redis.on('error', () => {})
    try {
      await redis.ping()
      proxy.dropNextReply()
      await assert.rejects(redis.incr(key), RedisReplyLostError)
      // Made while the connection is down: sent once it is back, once.
      assert.equal(await redis.incr(key), 2)
      assert.equal(await direct.get(key), '2')
    } finally {
      redis.disconnect()
    }
  })

  it('fails every command waiting for a reply, in a transaction too', async () => {
    const redis = openRedis(proxy.url, { commandTimeout: 100 * REDIS_COMMAND_TIMEOUT_MS })
    redis.on('error', () => {})
    try {
      await redis.ping()
      await direct.set(key, '0')
      proxy.dropNextReply()
      const results = await Promise.allSettled([
        redis.multi().incr(key).incr(key).exec(),
        redis.incr(key),
      ])
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected'],
      )
      assert.ok(results.every((r) => r.status === 'rejected' && mayHaveRun(r.reason)))
      // Back (anything sent again would have run before this): each INCR ran at most once.
      await redis.ping()
      assert.ok(Number(await direct.get(key)) <= 3, `${await direct.get(key)} increments`)
    } finally {
      redis.disconnect()
    }
  })
})
