/**
 * The policy cache after a change: a read under way when its tunnel's policy changed caches
 * nothing (it may be older than the change), while other tunnels' changes leave it be, so that
 * a noisy tunnel cannot make every other tunnel's policy be read on every request.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { Policies } from '../../src/governance/policies.js'
import type { PolicyStore } from '../../src/store/policy-store.js'

describe('the policy cache after changes', () => {
  it("another tunnel's change does not make this tunnel's read uncacheable", async () => {
    let reads = 0
    const store = {
      get: async () => {
        reads++
        await new Promise((r) => setTimeout(r, 20))
        return undefined
      },
    } as unknown as PolicyStore
    const events = new LocalClusterEvents()
    const policies = new Policies({ store, events, log: createLogger('error', () => {}) })
    const first = policies.governance('tun_a')
    // Meanwhile tunnel B's tools changed (ToolPins publishes { type: 'tunnel' }).
    await events.publish({ type: 'tunnel', tunnelId: 'tun_b' })
    await first
    await policies.governance('tun_a')
    assert.equal(reads, 1, "tun_a was read again although only tun_b's policy changed")
  })

  it('a steady trickle of other tunnels\u2019 changes makes every request read the policy', async () => {
    let reads = 0
    const store = {
      get: async () => {
        reads++
        await new Promise((r) => setTimeout(r, 5))
        return undefined
      },
    } as unknown as PolicyStore
    const events = new LocalClusterEvents()
    const policies = new Policies({ store, events, log: createLogger('error', () => {}) })
    const noisy = setInterval(
      () => void events.publish({ type: 'tunnel', tunnelId: 'tun_noisy' }),
      2,
    )
    try {
      for (let i = 0; i < 50; i++) await policies.governance('tun_quiet')
    } finally {
      clearInterval(noisy)
    }
    assert.ok(reads <= 2, `${reads} reads of tun_quiet's unchanged policy for 50 requests`)
  })
})
