/**
 * The places sessionless (2026-07-28) requests hold while in flight: they share the plan's cap
 * with 2025 sessions, a refusal says why, a long request keeps its place past the reservation's
 * own expiry, and release frees it once however often it is called.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { EdgeSessions } from '../../src/quota/edge-sessions.js'
import { MemorySessionTracker } from '../../src/quota/memory-session-tracker.js'

const tunnel = { id: 'tun_x', accountId: 'acc_x', plan: 'free' as const }

async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

describe('EdgeSessions.holdRequest', () => {
  it('shares Free’s three places with sessions, and gives them back on release', async () => {
    const tracker = new MemorySessionTracker({ idleMs: 60_000 })
    const sessions = new EdgeSessions(tracker, silentLogger, 60)
    const reserved = await sessions.reserve(tunnel)
    assert.ok(reserved.ok)
    sessions.settle(tunnel, reserved.reservation, 200, [['mcp-session-id', 'legacy-1']])
    const a = await sessions.holdRequest(tunnel)
    const b = await sessions.holdRequest(tunnel)
    assert.ok(a.ok && b.ok)
    await settle()
    assert.equal(await tracker.count(tunnel.id), 3)
    const refused = await sessions.holdRequest(tunnel)
    assert.equal(refused.ok, false)
    assert.match(
      refused.ok ? '' : refused.reason,
      /already has 3 MCP sessions, requests and subscription streams in flight, the most the Free plan allows \(3\)/,
    )
    a.release()
    a.release()
    await settle()
    assert.equal(await tracker.count(tunnel.id), 2, 'released once')
    const c = await sessions.holdRequest(tunnel)
    assert.ok(c.ok)
    b.release()
    c.release()
    await settle()
    assert.equal(await tracker.count(tunnel.id), 1, 'the 2025 session remains')
  })

  it('a long request keeps its place past the reservation’s expiry', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z')
    const tracker = new MemorySessionTracker({
      idleMs: 60_000,
      reservationMs: 1_000,
      clock: () => new Date(now),
    })
    const sessions = new EdgeSessions(tracker, silentLogger, 60)
    const held = await sessions.holdRequest(tunnel)
    assert.ok(held.ok)
    await settle()
    now += 30_000
    assert.equal(await tracker.count(tunnel.id), 1)
    held.release()
    await settle()
    assert.equal(await tracker.count(tunnel.id), 0)
  })
})
