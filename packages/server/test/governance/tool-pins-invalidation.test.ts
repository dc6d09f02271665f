/**
 * The pins' cache after a change told by another node (or an approval here): a read under way
 * when its tunnel's pins changed caches nothing, and the next request reads them again. Found by
 * a hostile review: a read begun before an owner's rejection, answered after the `tunnel` event,
 * was cached for 5 s, so the node kept letting agents call the rejected tool that long.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { ToolPins } from '../../src/governance/tool-pins.js'
import type { PinRow, ToolPinsStore } from '../../src/store/tool-pins-store.js'

const row = (status: PinRow['status']) =>
  ({ name: 'search', status, approvedHash: 'h1', currentHash: 'h2' }) as unknown as PinRow

describe('the pins cache after changes', () => {
  it('a read under way when the pins changed is not cached', async () => {
    let status: PinRow['status'] = 'changed'
    let reads = 0
    let release: () => void = () => {}
    const store = {
      load: async () => {
        reads++
        // What the row says when the read is made, answered later.
        const seen = status
        if (reads === 1) await new Promise<void>((r) => (release = r))
        return { baselined: true, listChangedAt: null, pins: [row(seen)] }
      },
    } as unknown as ToolPinsStore
    const events = new LocalClusterEvents()
    const pins = new ToolPins({
      store,
      events,
      log: silentLogger,
      onChange: () => {},
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
    })
    const first = pins.state('tun_a')
    await new Promise((r) => setImmediate(r))
    // The owner rejects the tool on another node, which tells this one.
    status = 'rejected'
    await events.publish({ type: 'tunnel', tunnelId: 'tun_a' })
    release()
    assert.equal((await first).pins.get('search')?.status, 'changed')
    const next = await pins.state('tun_a')
    assert.equal(next.pins.get('search')?.status, 'rejected', 'the stale read was cached')
    assert.equal(reads, 2)
  })

  it("another tunnel's change leaves this tunnel's read cached", async () => {
    let reads = 0
    const store = {
      load: async () => {
        reads++
        await new Promise((r) => setTimeout(r, 20))
        return { baselined: true, listChangedAt: null, pins: [] }
      },
    } as unknown as ToolPinsStore
    const events = new LocalClusterEvents()
    const pins = new ToolPins({
      store,
      events,
      log: silentLogger,
      onChange: () => {},
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
    })
    const first = pins.state('tun_a')
    await events.publish({ type: 'tunnel', tunnelId: 'tun_b' })
    await first
    await pins.state('tun_a')
    assert.equal(reads, 1)
  })
})
