/**
 * Session places on a Redis that stalls past the command timeout: a command that timed out still
 * runs once Redis resumes, so a reservation refused with 503 held its place for 120 s and a first
 * hold refused so kept its session in use for a lease (found by a hostile review: three
 * initializes during a stall locked a Free tunnel for two minutes). What timed out is given back
 * behind it. A redis-server of the test's own, stalled with SIGSTOP.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { EdgeSessions } from '../../src/quota/edge-sessions.js'
import { RedisSessionTracker } from '../../src/quota/redis-session-tracker.js'
import { OwnRedis } from '../../../../test/helpers/own-redis.js'

const TUNNEL = { id: 'tun_stall', accountId: 'acc_stall', plan: 'free' as const }
const hasRedisServer = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some(existsSync)

describe(
  'session places on a stalled Redis',
  { skip: !hasRedisServer && 'no redis-server' },
  () => {
    it('gives back the reservations and holds that timed out once Redis runs them', async () => {
      const redis = await OwnRedis.start()
      const tracker = RedisSessionTracker.open(redis.url, {
        idleMs: 300_000,
        redis: { maxRetriesPerRequest: 1, commandTimeout: 300 },
      })
      const sessions = new EdgeSessions(
        tracker,
        createLogger('error', () => {}),
      )
      try {
        const place = await sessions.reserve(TUNNEL)
        assert.ok(place.ok)
        sessions.settle(TUNNEL, place.reservation, 200, [['Mcp-Session-Id', 'a']])
        sessions.done(TUNNEL, 'a')
        for (let i = 0; (await tracker.count(TUNNEL.id)) !== 1 && i < 50; i++) await sleep(20)

        redis.stall()
        await assert.rejects(sessions.reserve(TUNNEL))
        await assert.rejects(sessions.reserve(TUNNEL))
        await assert.rejects(sessions.hold(TUNNEL, 'a'))
        await assert.rejects(sessions.holdRequest(TUNNEL))
        redis.resume()
        for (let i = 0; (await tracker.count(TUNNEL.id)) !== 1 && i < 50; i++) await sleep(20)

        assert.equal(await tracker.count(TUNNEL.id), 1, 'only the session is left')
        // "a" is idle: two newcomers take the free places and a third takes a's.
        for (let i = 0; i < 3; i++) assert.ok((await sessions.reserve(TUNNEL)).ok, `newcomer ${i}`)
      } finally {
        await sessions.close()
        await tracker.close()
        await redis.kill()
      }
    })
  },
)
