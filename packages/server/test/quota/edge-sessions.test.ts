/**
 * The edge's use of the session tracker: a request of a session holds it from before it is
 * forwarded until its exchange ends (several exchanges of one session hold it once), an idle
 * session gives its place to a new one, a session that lost its place takes one back or is
 * refused while every place is in use, and after `close()` (shutdown) nothing is held or logged.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { EdgeSessions } from '../../src/quota/edge-sessions.js'
import { MemorySessionTracker } from '../../src/quota/memory-session-tracker.js'
import { RedisSessionTracker } from '../../src/quota/redis-session-tracker.js'
import { deleteRedisKeys } from './usage-counter-subjects.js'

const TUNNEL = { id: 'tun_edge', accountId: 'acc_edge', plan: 'free' as const }
const SESSION_HEADERS = (id: string): [string, string][] => [['Mcp-Session-Id', id]]

/** Let background tracker calls run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

async function setup() {
  const lines: string[] = []
  const tracker = new MemorySessionTracker({ idleMs: 300_000 })
  const sessions = new EdgeSessions(
    tracker,
    createLogger('debug', (l) => lines.push(l)),
  )
  const open = async (id: string) => {
    const place = await sessions.reserve(TUNNEL)
    assert.ok(place.ok, `${id} refused`)
    // The initialize's answer ends at once (a JSON answer).
    const opened = sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS(id))
    assert.equal(opened, id)
    sessions.done(TUNNEL, id)
    await settle()
  }
  return { tracker, sessions, lines, open }
}

describe('EdgeSessions', () => {
  it('holds a session from before its request is forwarded to the end of its last exchange', async () => {
    const { sessions, open } = await setup()
    for (const id of ['a', 'b', 'c']) await open(id)
    for (const id of ['a', 'b', 'c'])
      assert.deepEqual(await sessions.hold(TUNNEL, id), { ok: true })
    assert.deepEqual(await sessions.hold(TUNNEL, 'c'), { ok: true }, 'a second exchange of c')
    const refused = await sessions.reserve(TUNNEL)
    assert.equal(refused.ok, false)
    assert.match(refused.ok ? '' : refused.reason, /each is in use/)
    sessions.done(TUNNEL, 'c')
    await settle()
    assert.equal((await sessions.reserve(TUNNEL)).ok, false, 'c still has an exchange open')
    sessions.done(TUNNEL, 'c')
    await settle()
    assert.equal((await sessions.reserve(TUNNEL)).ok, true, 'c is idle and gives its place')
  })

  it('gives a session that lost its place while idle one back, and refuses it while every place is in use', async () => {
    const { sessions, open, tracker } = await setup()
    for (const id of ['a', 'b', 'c', 'd']) await open(id)
    assert.equal(await tracker.count(TUNNEL.id), 3, 'd took the place of a, idle the longest')
    for (const id of ['b', 'c', 'd'])
      assert.deepEqual(await sessions.hold(TUNNEL, id), { ok: true })
    const refused = await sessions.hold(TUNNEL, 'a')
    assert.equal(refused.ok, false)
    assert.match(refused.ok ? '' : refused.reason, /another took its place.*3 places.*all in use/)
    sessions.done(TUNNEL, 'd')
    await settle()
    assert.deepEqual(await sessions.hold(TUNNEL, 'a'), { ok: true }, 'd is idle: a takes its place')
    assert.equal((await sessions.hold(TUNNEL, 'd')).ok, false)
    assert.equal(await tracker.count(TUNNEL.id), 3)
    // A refused hold holds nothing: a's exchange ending gives its place to d.
    sessions.done(TUNNEL, 'a')
    await settle()
    assert.deepEqual(await sessions.hold(TUNNEL, 'd'), { ok: true })
  })

  it('keeps ten sessions opened one after another to three in use at once', async () => {
    const { sessions, open, tracker } = await setup()
    const ids = Array.from({ length: 10 }, (_, i) => `s${i}`)
    for (const id of ids) await open(id)
    const held = await Promise.all(ids.map((id) => sessions.hold(TUNNEL, id)))
    assert.equal(held.filter((h) => h.ok).length, 3)
    assert.equal(await tracker.count(TUNNEL.id), 3)
  })

  it('renews only holds the tracker granted: a refused first hold leaves nothing held', async () => {
    /** The tracker's answer to a hold of "a" is held back until `release` (a slow Redis). */
    class SlowAnswers extends MemorySessionTracker {
      gate: Promise<void> | null = null
      override async hold(tunnelId: string, sessionId: string, cap: number, now?: Date) {
        const counted = await super.hold(tunnelId, sessionId, cap, now)
        if (sessionId === 'a' && this.gate !== null) await this.gate
        return counted
      }
    }
    const tracker = new SlowAnswers({ idleMs: 300_000 })
    // Renewed every 10 ms.
    const sessions = new EdgeSessions(
      tracker,
      createLogger('error', () => {}),
      30,
    )
    for (const id of ['a', 'b', 'c', 'd']) {
      const place = await sessions.reserve(TUNNEL)
      assert.ok(place.ok)
      sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS(id))
      sessions.done(TUNNEL, id)
      await settle()
    }
    for (const id of ['b', 'c', 'd'])
      assert.deepEqual(await sessions.hold(TUNNEL, id), { ok: true })
    let release = () => {}
    tracker.gate = new Promise((resolve) => (release = resolve))
    const pending = sessions.hold(TUNNEL, 'a')
    await settle()
    // "d" goes idle while the answer to "a" (every place in use) is on its way.
    sessions.done(TUNNEL, 'd')
    await new Promise((resolve) => setTimeout(resolve, 60))
    release()
    assert.equal((await pending).ok, false)
    await settle()
    const place = await sessions.reserve(TUNNEL)
    assert.ok(place.ok, 'no renewal held "a" in the place "d" left')
    await sessions.close()
  })

  it('holds a session its initialize opened until that answer ends (an SSE stream)', async () => {
    const { sessions, open, tracker } = await setup()
    await open('idle')
    for (const id of ['x', 'y']) {
      const place = await sessions.reserve(TUNNEL)
      assert.ok(place.ok)
      const opened = sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS(id))
      assert.equal(opened, id)
    }
    await settle()
    const newcomer = await sessions.reserve(TUNNEL)
    assert.ok(newcomer.ok, 'the idle session gives its place')
    sessions.release(TUNNEL, newcomer.reservation)
    await settle()
    assert.ok((await sessions.reserve(TUNNEL)).ok, 'a free place')
    const refused = await sessions.reserve(TUNNEL)
    assert.equal(refused.ok, false, 'x and y are in use while their answers stream')
    sessions.done(TUNNEL, 'x')
    await settle()
    const next = await sessions.reserve(TUNNEL)
    assert.ok(next.ok, 'x is idle once its answer ended')
    assert.deepEqual(await sessions.hold(TUNNEL, 'y'), { ok: true }, 'y kept its place')
    assert.equal(await tracker.count(TUNNEL.id), 3)
    await sessions.close()
  })

  it('counts a session its initialize opened though a hold of the same id was refused meanwhile', async () => {
    // An upstream that reuses ids: a request named "x" before an initialize opened it again.
    const { sessions, tracker } = await setup()
    for (const id of ['a', 'b']) {
      const place = await sessions.reserve(TUNNEL)
      assert.ok(place.ok)
      sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS(id))
    }
    const place = await sessions.reserve(TUNNEL)
    assert.ok(place.ok)
    const early = sessions.hold(TUNNEL, 'x')
    assert.equal(sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS('x')), 'x')
    assert.equal((await early).ok, false, 'every place was in use or reserved')
    await settle()
    assert.equal((await tracker.reserve(TUNNEL.id, 3)).ok, false, 'x is counted and in use')
    assert.deepEqual(await sessions.hold(TUNNEL, 'x'), { ok: true }, 'its requests go on')
    await sessions.close()
  })

  it('opens nothing and holds nothing for an initialize answered without a session or with an error', async () => {
    const { sessions, tracker } = await setup()
    const a = await sessions.reserve(TUNNEL)
    assert.ok(a.ok)
    assert.equal(sessions.settle(TUNNEL, a.reservation, 200, []), null)
    const b = await sessions.reserve(TUNNEL)
    assert.ok(b.ok)
    assert.equal(sessions.settle(TUNNEL, b.reservation, 500, SESSION_HEADERS('b')), null)
    const c = await sessions.reserve(TUNNEL)
    assert.ok(c.ok)
    assert.equal(sessions.settle(TUNNEL, c.reservation, 200, SESSION_HEADERS('bad id')), null)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0)
    await sessions.close()
  })

  it('lets go of the sessions it still holds when it closes (a drain), so other nodes see them idle', async () => {
    const { sessions, open, tracker } = await setup()
    for (const id of ['a', 'b', 'c']) {
      await open(id)
      assert.deepEqual(await sessions.hold(TUNNEL, id), { ok: true })
    }
    assert.equal((await tracker.reserve(TUNNEL.id, 3)).ok, false, 'all three in use')
    await sessions.close()
    const place = await tracker.reserve(TUNNEL.id, 3)
    assert.ok(place.ok)
    assert.equal(place.displaced, 'a', 'idle once the node closed')
  })

  it('lets go at close of the holds still on their way to the tracker, once they land', async () => {
    /** The tracker's answers to holds wait for `release` (a slow Redis). */
    class SlowHolds extends MemorySessionTracker {
      gate: Promise<void> | null = null
      override async hold(tunnelId: string, sessionId: string, cap: number, now?: Date) {
        const counted = await super.hold(tunnelId, sessionId, cap, now)
        if (this.gate !== null) await this.gate
        return counted
      }
    }
    const tracker = new SlowHolds({ idleMs: 300_000 })
    const sessions = new EdgeSessions(
      tracker,
      createLogger('error', () => {}),
    )
    let release = () => {}
    tracker.gate = new Promise((resolve) => (release = resolve))
    const holds = ['s1', 's2', 's3'].map((id) => sessions.hold(TUNNEL, id))
    const closing = sessions.close()
    release()
    for (const hold of holds) assert.deepEqual(await hold, { ok: true })
    await closing
    for (const id of ['s1', 's2', 's3']) sessions.done(TUNNEL, id)
    const place = await tracker.reserve(TUNNEL.id, 3)
    assert.ok(place.ok, 'the three are idle once the node closed')
    assert.equal(place.displaced, 's1')
  })

  it('ends a session on a 404 and a DELETE, and counts no malformed id', async () => {
    const { sessions, open, tracker } = await setup()
    await open('a')
    sessions.answered(TUNNEL, 'POST', 'a', 500)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 1, 'an error ends nothing')
    sessions.answered(TUNNEL, 'POST', 'a', 404)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0, 'the 404 ended it')
    await open('b')
    sessions.answered(TUNNEL, 'DELETE', 'b', 200)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0, 'the DELETE ended it')
    assert.deepEqual(await sessions.hold(TUNNEL, 'bad id\n'), { ok: true })
    sessions.done(TUNNEL, 'bad id\n')
    assert.equal(await tracker.count(TUNNEL.id), 0)
  })

  it('counts sessions whose ids are longer than the tracker keeps, under a digest', async () => {
    const { sessions, open, tracker } = await setup()
    const ids = ['a', 'b', 'c', 'd'].map((c) => c.repeat(291))
    for (const id of ids) await open(id)
    assert.equal(await tracker.count(TUNNEL.id), 3)
    const held = await Promise.all(ids.map((id) => sessions.hold(TUNNEL, id)))
    assert.equal(held.filter((h) => h.ok).length, 3)
    for (const [i, id] of ids.entries()) if (held[i]!.ok) sessions.done(TUNNEL, id)
    sessions.answered(TUNNEL, 'DELETE', ids[0]!, 200)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 2, 'a DELETE ends one')
  })

  it('keeps a session burrow up refused as another agent’s: its 404 does not end it', async () => {
    const { sessions, open, tracker } = await setup()
    await open('a')
    const foreign: [string, string][] = [['Burrow-Foreign-Session', '1']]
    sessions.answered(TUNNEL, 'POST', 'a', 404, foreign)
    sessions.answered(TUNNEL, 'DELETE', 'a', 404, foreign)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 1, 'still counted')
    sessions.answered(TUNNEL, 'POST', 'a', 404)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0, 'a plain 404 ends it')
  })

  it('is quiet after close(): nothing held, nothing logged', async () => {
    const { sessions, open, tracker, lines } = await setup()
    await open('a')
    assert.deepEqual(await sessions.hold(TUNNEL, 'a'), { ok: true })
    await sessions.close()
    await tracker.close()
    assert.deepEqual(await sessions.hold(TUNNEL, 'a'), { ok: true })
    sessions.done(TUNNEL, 'a')
    sessions.touch(TUNNEL, 'a')
    await settle()
    assert.deepEqual(
      lines.filter((l) => /failed/.test(l)),
      [],
    )
  })
})

describe('EdgeSessions.holdRequest (sessionless 2026-07-28 requests)', () => {
  const redisUrl = process.env.TEST_REDIS_URL
  for (const backend of ['memory', ...(redisUrl ? ['redis'] : [])]) {
    it(`never lets more than the cap in flight, however fast they come (${backend})`, async () => {
      // Reserved, then opened and held in the background, a request's place was idle in between,
      // and with Redis the next request took it: four of eight were admitted on Free.
      const keyPrefix = `burrow-test-${randomBytes(6).toString('hex')}:`
      const tracker =
        backend === 'redis'
          ? RedisSessionTracker.open(redisUrl!, { idleMs: 300_000, keyPrefix })
          : new MemorySessionTracker({ idleMs: 300_000 })
      const sessions = new EdgeSessions(
        tracker,
        createLogger('error', () => {}),
      )
      try {
        const held = []
        for (let i = 0; i < 8; i++) held.push(await sessions.holdRequest(TUNNEL))
        assert.deepEqual(
          held.map((h) => h.ok),
          [true, true, true, false, false, false, false, false],
        )
        assert.equal(await tracker.count(TUNNEL.id), 3)
        for (const h of held) if (h.ok) h.release()
        await new Promise((resolve) => setTimeout(resolve, 50))
        assert.equal(await tracker.count(TUNNEL.id), 0)
      } finally {
        await sessions.close()
        await tracker.close()
        if (backend === 'redis') await deleteRedisKeys(redisUrl!, keyPrefix)
      }
    })
  }

  it('holds a place while in flight, shares the cap with sessions, and gives it back once', async () => {
    const { sessions, open, tracker } = await setup()
    await open('legacy')
    const a = await sessions.holdRequest(TUNNEL)
    const b = await sessions.holdRequest(TUNNEL)
    assert.ok(a.ok && b.ok)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 3)
    const c = await sessions.holdRequest(TUNNEL)
    assert.ok(c.ok, 'the idle 2025 session gives its place')
    await settle()
    const refused = await sessions.holdRequest(TUNNEL)
    assert.equal(refused.ok, false, 'every place is in use')
    assert.match(
      refused.ok ? '' : refused.reason,
      /already has 3 MCP sessions, requests and subscription streams in flight, the most the Free plan allows \(3\)/,
    )
    a.release()
    a.release()
    await settle()
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 2, 'released once')
    const d = await sessions.holdRequest(TUNNEL)
    assert.ok(d.ok)
    for (const held of [b, c, d]) held.release()
    await settle()
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0)
    await sessions.close()
  })
})
