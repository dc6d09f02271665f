/**
 * The edge's use of the session tracker: an answered request holds its session until its
 * exchange ends (several exchanges of one session hold it once), an idle session gives its place
 * to a new one, and after `close()` (shutdown) nothing is held or logged.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { EdgeSessions } from '../../src/quota/edge-sessions.js'
import { MemorySessionTracker } from '../../src/quota/memory-session-tracker.js'

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
    sessions.settle(TUNNEL, place.reservation, 200, SESSION_HEADERS(id))
    await settle()
  }
  return { tracker, sessions, lines, open }
}

describe('EdgeSessions', () => {
  it('holds a session from its answer to the end of its last exchange', async () => {
    const { sessions, open } = await setup()
    for (const id of ['a', 'b', 'c']) await open(id)
    for (const id of ['a', 'b', 'c']) assert.equal(sessions.answered(TUNNEL, 'GET', id, 200), true)
    assert.equal(sessions.answered(TUNNEL, 'POST', 'c', 200), true, 'a second exchange of c')
    await settle()
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

  it('holds nothing for refusals, DELETE and malformed ids', async () => {
    const { sessions, open, tracker } = await setup()
    await open('a')
    assert.equal(sessions.answered(TUNNEL, 'POST', 'a', 500), false)
    assert.equal(sessions.answered(TUNNEL, 'POST', 'a', 404), false)
    assert.equal(sessions.answered(TUNNEL, 'POST', 'bad id\n', 200), false)
    assert.equal(sessions.answered(TUNNEL, 'POST', 'x'.repeat(300), 200), false)
    assert.equal(sessions.answered(TUNNEL, 'DELETE', 'a', 200), false)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0, 'the 404 and DELETE ended it')
  })

  it('keeps a session burrow up refused as another agent’s: its 404 does not end it', async () => {
    const { sessions, open, tracker } = await setup()
    await open('a')
    const foreign: [string, string][] = [['Burrow-Foreign-Session', '1']]
    assert.equal(sessions.answered(TUNNEL, 'POST', 'a', 404, foreign), false)
    assert.equal(sessions.answered(TUNNEL, 'DELETE', 'a', 404, foreign), false)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 1, 'still counted')
    assert.equal(sessions.answered(TUNNEL, 'POST', 'a', 404), false)
    await settle()
    assert.equal(await tracker.count(TUNNEL.id), 0, 'a plain 404 ends it')
  })

  it('is quiet after close(): nothing held, nothing logged', async () => {
    const { sessions, open, tracker, lines } = await setup()
    await open('a')
    assert.equal(sessions.answered(TUNNEL, 'GET', 'a', 200), true)
    sessions.close()
    await tracker.close()
    assert.equal(sessions.answered(TUNNEL, 'GET', 'a', 200), false)
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
    sessions.close()
  })
})
