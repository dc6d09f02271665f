// The gate's cache of tunnels' access settings: forgotten on a change, and not filled again with
// what a read begun before the change returned.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { AccessGate } from '../../src/access/access-gate.js'
import type { TunnelAccess } from '../../src/store/tunnel-access-row.js'

it('does not cache settings read before a change it was told of', async () => {
  let stored: TunnelAccess = { mode: 'public', allowIps: [] }
  let reads = 0
  let release: () => void = () => {}
  const gate = new AccessGate({
    settings: {
      get: async () => {
        reads++
        const seen = stored
        await new Promise<void>((resolve) => (release = resolve))
        return seen
      },
    },
    agentTokens: { authenticate: () => Promise.resolve(undefined) },
    issuer: 'http://localhost',
    publicOrigin: (label) => `http://${label}.localhost`,
  })
  const before = gate.settings('tun_1') // reads `public`…
  await new Promise((resolve) => setImmediate(resolve))
  stored = { mode: 'oauth', allowIps: [] } // …while the owner turns on OAuth
  gate.invalidate('tun_1')
  release()
  assert.equal((await before).mode, 'public')
  const after = gate.settings('tun_1')
  await new Promise((resolve) => setImmediate(resolve))
  release()
  assert.equal((await after).mode, 'oauth', 'the old read did not fill the cache')
  assert.equal(reads, 2)
})
