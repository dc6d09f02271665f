/**
 * The quotas' and sessions' Redis commands when the connection drops after Redis ran one and
 * before its reply came back (a connection blip): ioredis sent the command again once it had
 * reconnected, and Redis ran it twice, so a call was counted twice (and allowed, its caller told
 * only of the second count). Now it fails, as a command that timed out does: the call is refused
 * with 503, counted once. A real Redis (TEST_REDIS_URL) behind a proxy that drops the
 * connection before one reply.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { RedisSessionTracker } from '../../src/quota/redis-session-tracker.js'
import { RedisUsageCounters } from '../../src/quota/redis-usage-counters.js'
import {
  startReplyDroppingProxy,
  type ReplyDroppingProxy,
} from '../helpers/reply-dropping-proxy.js'
import { deleteRedisKeys } from './usage-counter-subjects.js'

const url = process.env.TEST_REDIS_URL
const NOW = new Date('2099-03-10T12:00:00.000Z')

describe(
  'a Redis reply lost to a dropped connection',
  { skip: !url && 'no TEST_REDIS_URL' },
  () => {
    let proxy: ReplyDroppingProxy
    let direct: Redis
    const keyPrefix = `burrow-test-${randomBytes(6).toString('hex')}:`

    before(async () => {
      const { hostname, port } = new URL(url!)
      proxy = await startReplyDroppingProxy(hostname, Number(port || 6379))
      direct = new Redis(url!)
    })

    after(async () => {
      direct.disconnect()
      await proxy.close()
      await deleteRedisKeys(url!, keyPrefix)
    })

    it('counts a call once, and fails it, when the reply of its count is lost', async () => {
      const counters = RedisUsageCounters.open(proxy.url, { keyPrefix, clock: () => NOW })
      try {
        // The month seeded and the connection ready: the count is one script, its reply dropped.
        assert.equal(await counters.get('tun_blip', 'tool_calls'), 0)
        proxy.dropNextReply()
        const outcome = await counters.consume('tun_blip', 'tool_calls', 1, 100).then(
          (result) => ({ counted: result.value }),
          (error: Error) => ({ failed: error.name }),
        )
        await proxy.dropped()
        assert.equal(await direct.get(`${keyPrefix}q:tun_blip:2099-03:tool_calls`), '1')
        assert.deepEqual(outcome, { failed: 'RedisReplyLostError' })
        // The connection is back: the next call is counted, once.
        assert.equal((await counters.consume('tun_blip', 'tool_calls', 1, 100)).value, 2)
      } finally {
        await counters.close()
      }
    })

    it('gives back a session place whose reservation lost its reply', async () => {
      const tracker = RedisSessionTracker.open(proxy.url, { keyPrefix, idleMs: 300_000 })
      try {
        assert.equal(await tracker.count('tun_places'), 0)
        proxy.dropNextReply()
        await assert.rejects(tracker.reserve('tun_places', 3), { name: 'RedisReplyLostError' })
        // The release sent behind the reservation ran after it, once the connection was back.
        assert.equal(await tracker.count('tun_places'), 0)
        assert.equal((await tracker.reserve('tun_places', 3)).ok, true)
        assert.equal(await tracker.count('tun_places'), 1)
      } finally {
        await tracker.close()
      }
    })
  },
)
