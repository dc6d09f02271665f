// The custom domains' route cache after a change: a lookup under way when a domain was removed
// (here or, through the `domains` event, on another node) serves its caller and is not cached.
// Found by a hostile review: one answered after the change was cached for 5 s.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { CustomDomains } from '../../src/domains/custom-domains.js'
import type { DnsVerifier } from '../../src/domains/dns-verifier.js'
import type { CustomDomainStore } from '../../src/store/custom-domain-store.js'

it('does not cache a route read under way when the cache was dropped', async () => {
  let reads = 0
  let release: () => void = () => {}
  let stored: 'pending' | undefined = 'pending'
  const store = {
    route: async () => {
      reads++
      const seen = stored
      if (reads === 1) await new Promise<void>((r) => (release = r))
      return seen
    },
  } as unknown as CustomDomainStore
  const domains = new CustomDomains({
    store,
    verifier: {} as DnsVerifier,
    zone: 'tunnels.example.com',
    planOf: async () => 'pro',
    log: silentLogger,
  })
  const first = domains.route('mcp.example.org')
  await new Promise((r) => setImmediate(r))
  stored = undefined
  domains.invalidate()
  release()
  assert.equal(await first, 'pending')
  assert.equal(await domains.route('mcp.example.org'), null, 'the stale route was cached')
  assert.equal(reads, 2)
})
