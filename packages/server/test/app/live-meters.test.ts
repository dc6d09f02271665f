import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MetersView } from '../../src/app/billing-view.js'
import { withLiveCounts } from '../../src/app/live-meters.js'

const NOW = new Date('2026-11-30T20:00:00Z')

const SNAPSHOT: MetersView = {
  period: '2026-11',
  takenAt: new Date('2026-11-30T19:59:00Z'),
  resetsAt: new Date('2026-12-01T00:00:00Z'),
  tunnels: [
    { tunnelId: 'tun_a', name: 'a', toolCalls: 1, bandwidthBytes: 10 },
    { tunnelId: 'tun_b', name: 'b', toolCalls: 2, bandwidthBytes: 20 },
  ],
}

describe('withLiveCounts', () => {
  it("puts each tunnel's live counts over the snapshot's, and says so", async () => {
    const asked: string[] = []
    const live = await withLiveCounts(
      SNAPSHOT,
      async (id, now) => {
        asked.push(`${id} ${now.toISOString()}`)
        return { toolCalls: id === 'tun_a' ? 5 : 7, bandwidthBytes: 99 }
      },
      NOW,
    )
    assert.equal(live.live, true)
    assert.deepEqual(
      live.tunnels.map((t) => [t.tunnelId, t.name, t.toolCalls, t.bandwidthBytes]),
      [
        ['tun_a', 'a', 5, 99],
        ['tun_b', 'b', 7, 99],
      ],
    )
    assert.deepEqual(asked.sort(), [`tun_a ${NOW.toISOString()}`, `tun_b ${NOW.toISOString()}`])
  })

  it('keeps the snapshot, unmarked, without live counters or when one cannot be read', async () => {
    assert.equal(await withLiveCounts(SNAPSHOT, undefined, NOW), SNAPSHOT)
    const failing = await withLiveCounts(
      SNAPSHOT,
      async (id) => {
        if (id === 'tun_b') throw new Error('redis: connection refused')
        return { toolCalls: 5, bandwidthBytes: 50 }
      },
      NOW,
    )
    assert.equal(failing, SNAPSHOT)
    assert.equal(failing.live, undefined)
  })
})
