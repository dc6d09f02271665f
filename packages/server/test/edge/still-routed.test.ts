/**
 * Whether an open stream's request would still reach the same tunnel: the tunnel under its name,
 * serving, and for a custom domain the domain's own gate and route.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { stillRouted } from '../../src/edge/still-routed.js'
import type { TunnelWithAccount } from '../../src/store/store.js'

const TUNNEL: TunnelWithAccount = {
  id: 'tun_1',
  accountId: 'acc_1',
  name: null,
  subdomain: 'files',
  createdAt: new Date(0),
  lastSeenAt: null,
  serving: true,
  pinned: false,
  accountSlug: 'acme',
  plan: 'pro',
}

describe('stillRouted', () => {
  it('follows the tunnel: gone, renamed to another, or stopped by its plan', async () => {
    const lookup = (found: TunnelWithAccount | null) => ({ byLabel: () => Promise.resolve(found) })
    assert.equal(await stillRouted(lookup(TUNNEL), 'files--acme', 'tun_1', undefined), true)
    assert.equal(await stillRouted(lookup(null), 'files--acme', 'tun_1', undefined), false)
    const other = { ...TUNNEL, id: 'tun_2' }
    assert.equal(await stillRouted(lookup(other), 'files--acme', 'tun_1', undefined), false)
    const stopped = { ...TUNNEL, serving: false }
    assert.equal(await stillRouted(lookup(stopped), 'files--acme', 'tun_1', undefined), false)
  })

  it("asks a custom domain's gate and route", async () => {
    const lookup = { byLabel: () => Promise.resolve(TUNNEL) }
    const host = (gated: boolean, routes: boolean) => ({
      origin: 'https://mcp.example.test',
      gate: () =>
        gated ? { code: 'plan_limit' as const, message: 'no', reason: 'downgraded' } : null,
      stillRoutes: () => Promise.resolve(routes),
    })
    assert.equal(await stillRouted(lookup, 'files--acme', 'tun_1', host(false, true)), true)
    assert.equal(await stillRouted(lookup, 'files--acme', 'tun_1', host(true, true)), false)
    assert.equal(await stillRouted(lookup, 'files--acme', 'tun_1', host(false, false)), false)
  })
})
