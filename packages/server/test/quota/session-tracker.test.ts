/**
 * The session-tracker contract: one suite every implementation must pass, run against the
 * in-process tracker always and against the Redis tracker (two nodes sharing a key prefix) when
 * TEST_REDIS_URL is set. Times come from an injected clock; they are in 2099 because the Redis
 * tracker sets PEXPIREAT from it, and Redis drops a key at once when that time is past.
 */

import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { MemorySessionTracker } from '../../src/quota/memory-session-tracker.js'
import { RedisSessionTracker } from '../../src/quota/redis-session-tracker.js'
import type { SessionTracker, SessionTrackerOptions } from '../../src/quota/session-tracker.js'
import { deleteRedisKeys } from './usage-counter-subjects.js'

const START = new Date('2099-03-10T12:00:00.000Z').getTime()
const IDLE_MS = 30 * 60 * 1000
const RESERVATION_MS = 60 * 1000
const LEASE_MS = 90 * 1000

interface Subject {
  readonly tracker: SessionTracker
  /** Another node (Redis), or the same tracker (memory). */
  readonly peer: SessionTracker
  /** Lose every place and mark, as a Redis restarted empty does (Redis only). */
  lose?(): Promise<void>
  close(): Promise<void>
}

interface Implementation {
  readonly name: string
  open(options: SessionTrackerOptions): Subject
}

function implementations(): Implementation[] {
  const memory: Implementation = {
    name: 'memory',
    open(options) {
      const tracker = new MemorySessionTracker(options)
      return { tracker, peer: tracker, close: () => tracker.close() }
    },
  }
  const url = process.env.TEST_REDIS_URL
  if (!url) return [memory]
  const redis: Implementation = {
    name: 'redis (two nodes)',
    open(options) {
      const keyPrefix = `burrow-test-${randomBytes(6).toString('hex')}:`
      const tracker = RedisSessionTracker.open(url, { ...options, keyPrefix })
      const peer = RedisSessionTracker.open(url, { ...options, keyPrefix })
      return {
        tracker,
        peer,
        lose: () => deleteRedisKeys(url, keyPrefix),
        async close() {
          await tracker.close()
          await peer.close()
          await deleteRedisKeys(url, keyPrefix)
        },
      }
    },
  }
  return [memory, redis]
}

for (const implementation of implementations()) {
  describe(`SessionTracker contract on ${implementation.name}`, () => {
    let now = START
    let subject: Subject
    let tracker: SessionTracker
    let peer: SessionTracker
    const later = (ms: number) => {
      now += ms
    }

    /** Reserve and open a session, held in use unless `idle`; fails the test when refused. */
    async function openSession(
      on: SessionTracker,
      tunnelId: string,
      id: string,
      idle = false,
    ): Promise<void> {
      const place = await on.reserve(tunnelId, 3)
      assert.ok(place.ok, `${id} was refused`)
      assert.equal(place.displaced, undefined, `${id} displaced a session`)
      await on.open(tunnelId, place.reservation, id)
      if (!idle) await on.hold(tunnelId, id, 3)
    }

    beforeEach(() => {
      now = START
      subject = implementation.open({
        idleMs: IDLE_MS,
        reservationMs: RESERVATION_MS,
        leaseMs: LEASE_MS,
        clock: () => new Date(now),
      })
      tracker = subject.tracker
      peer = subject.peer
    })

    afterEach(async () => {
      await subject.close()
    })

    it('refuses the session past the cap and keeps the open ones', async () => {
      await openSession(tracker, 'tun_a', 'one')
      await openSession(peer, 'tun_a', 'two')
      await openSession(tracker, 'tun_a', 'three')
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
      assert.equal(await tracker.count('tun_a'), 3)
      // Another tunnel has its own places.
      assert.equal((await peer.reserve('tun_b', 3)).ok, true)
      // A cap of 0 admits nothing.
      assert.deepEqual(await tracker.reserve('tun_c', 0), { ok: false, open: 0 })
    })

    it('frees a place when a session ends', async () => {
      for (const id of ['one', 'two', 'three']) await openSession(tracker, 'tun_a', id)
      await peer.end('tun_a', 'two')
      await tracker.letGo('tun_a', 'two')
      assert.equal(await tracker.count('tun_a'), 2)
      await openSession(peer, 'tun_a', 'four')
      assert.equal((await tracker.reserve('tun_a', 3)).ok, false)
      // Ending an unknown session changes nothing.
      await tracker.end('tun_a', 'never')
      assert.equal(await tracker.count('tun_a'), 3)
    })

    it('lets exactly the cap of concurrent initializes through', async () => {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? tracker : peer).reserve('tun_a', 25)),
      )
      assert.equal(results.filter((r) => r.ok).length, 25)
      assert.equal(await peer.count('tun_a'), 25)
    })

    it('holds a place while the initialize is in flight, and gives it back on release', async () => {
      const first = await tracker.reserve('tun_a', 1)
      assert.ok(first.ok)
      assert.deepEqual(await peer.reserve('tun_a', 1), { ok: false, open: 1 })
      await peer.release('tun_a', first.reservation)
      assert.equal(await tracker.count('tun_a'), 0)
      assert.equal((await tracker.reserve('tun_a', 1)).ok, true)
    })

    it('expires a reservation nobody settled', async () => {
      assert.equal((await tracker.reserve('tun_a', 1)).ok, true)
      later(RESERVATION_MS - 1)
      assert.equal((await peer.reserve('tun_a', 1)).ok, false)
      later(1)
      assert.equal((await peer.reserve('tun_a', 1)).ok, true)
    })

    it('opens a session whose reservation expired meanwhile (the initialize was admitted)', async () => {
      const slow = await tracker.reserve('tun_a', 1)
      assert.ok(slow.ok)
      later(RESERVATION_MS)
      await tracker.open('tun_a', slow.reservation, 'slow')
      assert.equal(await peer.count('tun_a'), 1)
    })

    it('ends idle sessions after the idle timeout, which every request restarts', async () => {
      await openSession(tracker, 'tun_a', 'busy', true)
      await openSession(tracker, 'tun_a', 'idle', true)
      await openSession(tracker, 'tun_a', 'third', true)
      later(IDLE_MS - 1000)
      await peer.touch('tun_a', 'busy')
      later(1000)
      // "idle" and "third" expired now; "busy" has most of a timeout left.
      assert.equal(await tracker.count('tun_a'), 1)
      await openSession(peer, 'tun_a', 'new-1')
      await openSession(peer, 'tun_a', 'new-2')
      assert.equal(await tracker.count('tun_a'), 3)
      later(IDLE_MS - 1001)
      assert.equal(await tracker.count('tun_a'), 3)
      later(1)
      assert.equal(await tracker.count('tun_a'), 2, 'busy expires a timeout after its last request')
    })

    it('gives a new session the place of the session idle the longest, never one in use', async () => {
      await openSession(tracker, 'tun_a', 'busy')
      await openSession(peer, 'tun_a', 'early', true)
      later(1000)
      await openSession(tracker, 'tun_a', 'late', true)
      const first = await peer.reserve('tun_a', 3)
      assert.ok(first.ok)
      assert.equal(first.displaced, 'early')
      const second = await tracker.reserve('tun_a', 3)
      assert.ok(second.ok)
      assert.equal(second.displaced, 'late')
      // "busy" and two reservations: nothing is idle, so the next is refused.
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
      assert.equal(await tracker.count('tun_a'), 3)
    })

    it('makes a session idle on letGo, and when its lease lapses without renewal', async () => {
      for (const id of ['one', 'two', 'three']) await openSession(tracker, 'tun_a', id)
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
      await tracker.letGo('tun_a', 'two')
      const place = await tracker.reserve('tun_a', 3)
      assert.ok(place.ok)
      assert.equal(place.displaced, 'two')
      await tracker.open('tun_a', place.reservation, 'four')
      await tracker.hold('tun_a', 'four', 3)
      later(LEASE_MS - 1)
      await tracker.hold('tun_a', 'one', 3)
      await tracker.hold('tun_a', 'four', 3)
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
      later(1)
      // "three" was never renewed: its lease ended, so it is idle and gives its place.
      const next = await peer.reserve('tun_a', 3)
      assert.ok(next.ok)
      assert.equal(next.displaced, 'three')
    })

    it('opens a session in use when asked (its answer still streams) until letGo or its lease ends', async () => {
      for (const id of ['one', 'two', 'three']) {
        const place = await tracker.reserve('tun_a', 3)
        assert.ok(place.ok)
        await tracker.open('tun_a', place.reservation, id, undefined, true)
      }
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 }, 'all in use')
      await tracker.letGo('tun_a', 'two')
      const place = await peer.reserve('tun_a', 3)
      assert.ok(place.ok)
      assert.equal(place.displaced, 'two')
      later(1000)
      await peer.open('tun_a', place.reservation, 'four')
      later(LEASE_MS)
      // Not renewed: "one" and "three" are idle once their leases end.
      const next = await peer.reserve('tun_a', 3)
      assert.ok(next.ok)
      assert.equal(next.displaced, 'one')
    })

    it('gives a displaced session a place when it is held again, a free one or an idle one’s, and refuses it while all are in use', async () => {
      await openSession(tracker, 'tun_a', 'old', true)
      await openSession(tracker, 'tun_a', 'b')
      await openSession(tracker, 'tun_a', 'c')
      const place = await peer.reserve('tun_a', 3)
      assert.ok(place.ok)
      assert.equal(place.displaced, 'old')
      await peer.open('tun_a', place.reservation, 'new')
      assert.equal(await peer.hold('tun_a', 'new', 3), true)
      // Every place is in use: "old" is refused, and nothing changes.
      assert.equal(await tracker.hold('tun_a', 'old', 3), false)
      assert.equal(await tracker.count('tun_a'), 3)
      // "b" goes idle: "old" takes its place.
      await tracker.letGo('tun_a', 'b')
      assert.equal(await tracker.hold('tun_a', 'old', 3), true)
      assert.equal(await tracker.count('tun_a'), 3)
      assert.equal(await peer.hold('tun_a', 'b', 3), false)
      // A place freed: "b" takes it.
      await peer.end('tun_a', 'c')
      assert.equal(await peer.hold('tun_a', 'b', 3), true)
      assert.equal(await tracker.count('tun_a'), 3)
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
    })

    it(
      'keeps a session in use while any node holds it: a node lets go of its own hold only',
      { skip: implementation.name === 'memory' && 'one node: its edge counts its exchanges' },
      async () => {
        // Its GET stream on one node, a POST of it answered on the other.
        await openSession(tracker, 'tun_a', 'both')
        assert.equal(await peer.hold('tun_a', 'both', 3), true)
        await openSession(tracker, 'tun_a', 'b', true)
        await openSession(tracker, 'tun_a', 'c')
        await peer.letGo('tun_a', 'both')
        const place = await peer.reserve('tun_a', 3)
        assert.ok(place.ok)
        assert.equal(place.displaced, 'b', 'the session held on the other node kept its place')
        await peer.open('tun_a', place.reservation, 'e')
        assert.equal(await peer.hold('tun_a', 'e', 3), true)
        assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
        await tracker.letGo('tun_a', 'both')
        const next = await peer.reserve('tun_a', 3)
        assert.ok(next.ok)
        assert.equal(next.displaced, 'both', 'idle once neither node holds it')
        // An end drops every node's hold.
        await tracker.open('tun_a', next.reservation, 'd')
        assert.equal(await tracker.hold('tun_a', 'd', 3), true)
        assert.equal(await peer.hold('tun_a', 'd', 3), true)
        await peer.end('tun_a', 'd')
        assert.equal(await tracker.count('tun_a'), 2)
        await tracker.letGo('tun_a', 'c')
        await peer.letGo('tun_a', 'e')
        assert.equal(await tracker.hold('tun_a', 'd', 3), true, 'a place is free again')
      },
    )

    it(
      'goes on serving a session in use on a node after Redis lost its place, uncounted, through every node',
      {
        skip: implementation.name === 'memory' && 'one node: nothing is lost but with the process',
      },
      async () => {
        for (const id of ['a', 'b', 'c']) await openSession(tracker, 'tun_a', id)
        await subject.lose!()
        // Three newcomers take the places and are in use.
        for (const id of ['x', 'y', 'z']) await openSession(peer, 'tun_a', id)
        // The node holding "a" renews it: no place, but it stays marked in use.
        assert.equal(await tracker.hold('tun_a', 'a', 3, undefined, true), false)
        // A request of "a" through the other node goes on; a newcomer is still refused.
        assert.equal(await peer.hold('tun_a', 'a', 3), true)
        assert.equal(await tracker.count('tun_a'), 3)
        assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
        // A session nobody holds is refused as before.
        assert.equal(await peer.hold('tun_a', 'b', 3), false)
        // Once "a" is let go everywhere, it is a stranger to the count again.
        await peer.letGo('tun_a', 'a')
        await tracker.letGo('tun_a', 'a')
        assert.equal(await peer.hold('tun_a', 'a', 3), false)
      },
    )

    it('never counts invented ids beyond the cap, however many are held', async () => {
      const held = []
      for (let i = 0; i < 50; i++) held.push(await tracker.hold('tun_a', `made-up-${i}`, 3))
      assert.deepEqual(
        held.map((h, i) => (h ? i : -1)).filter((i) => i >= 0),
        [0, 1, 2],
        'the first three took the free places; the others found every place in use',
      )
      assert.equal(await tracker.count('tun_a'), 3)
      // Those in use keep their places: a new session is refused, not let past the cap.
      assert.deepEqual(await peer.reserve('tun_a', 3), { ok: false, open: 3 })
      for (let i = 0; i < 3; i++) await tracker.letGo('tun_a', `made-up-${i}`)
      // Idle, they give way to real sessions like any other.
      const place = await peer.reserve('tun_a', 3)
      assert.ok(place.ok)
      assert.equal(place.displaced, 'made-up-0')
      await assert.rejects(tracker.hold('tun_a', 'x', -1), RangeError)
    })

    it('never adds a session for an unknown or expired id', async () => {
      await tracker.touch('tun_a', 'made-up')
      assert.equal(await tracker.count('tun_a'), 0)
      await openSession(tracker, 'tun_a', 'old')
      later(IDLE_MS)
      await peer.touch('tun_a', 'old')
      assert.equal(await tracker.count('tun_a'), 0)
      assert.equal((await tracker.reserve('tun_a', 1)).ok, true)
    })

    it('refuses malformed arguments with RangeError', async () => {
      await assert.rejects(tracker.reserve('tun:a', 3), RangeError)
      await assert.rejects(tracker.reserve('tun_a', -1), RangeError)
      await assert.rejects(tracker.reserve('tun_a', 1.5), RangeError)
      await assert.rejects(tracker.touch('tun_a', ''), RangeError)
      await assert.rejects(tracker.hold('tun_a', '', 3), RangeError)
      await assert.rejects(tracker.letGo('tun:a', 'x'), RangeError)
      await assert.rejects(tracker.open('tun_a', 'r', 'x'.repeat(257)), RangeError)
      assert.equal(await tracker.count('tun_a'), 0)
    })

    it('refuses calls after close()', async () => {
      await tracker.close()
      await assert.rejects(tracker.reserve('tun_a', 3), /closed/)
    })
  })
}

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl) {
  describe('RedisSessionTracker keys', () => {
    const keyPrefix = `burrow-test-sessions-${process.pid}:`
    let redis: Redis

    beforeEach(() => {
      redis = new Redis(redisUrl)
    })

    afterEach(async () => {
      await redis.quit()
      await deleteRedisKeys(redisUrl, keyPrefix)
    })

    it('keeps one sorted set per tunnel scored by expiry, gone after its last member', async () => {
      const tracker = new RedisSessionTracker(redis, {
        idleMs: IDLE_MS,
        keyPrefix,
        clock: () => new Date(START),
      })
      const place = await tracker.reserve('tun_a', 3)
      assert.ok(place.ok)
      await tracker.open('tun_a', place.reservation, 'abc')
      const key = `${keyPrefix}s:tun_a`
      assert.deepEqual(await redis.zrange(key, 0, -1, 'WITHSCORES'), [
        's:abc',
        String(START + IDLE_MS),
      ])
      assert.equal(await redis.call('PEXPIRETIME', key), START + IDLE_MS * 1)
      await tracker.close()
      assert.equal(await redis.ping(), 'PONG', 'a connection passed in stays open')
    })
  })
}
