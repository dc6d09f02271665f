// The edge's hostname cache: what it answers without waiting is what byLabel answered, and
// nothing before a first lookup.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TunnelLookup } from '../../src/edge/tunnel-lookup.js'
import type { TunnelWithAccount } from '../../src/store/store.js'

const TUNNEL = { id: 'tun_1', subdomain: 'notes' } as unknown as TunnelWithAccount

describe('TunnelLookup', () => {
  it('answers from its cache without waiting only what a lookup found or missed', async () => {
    const asked: string[] = []
    const lookup = new TunnelLookup('example.test', async (subdomain, slug) => {
      asked.push(`${subdomain}--${slug}`)
      return subdomain === 'notes' ? TUNNEL : undefined
    })
    assert.equal(lookup.cachedByLabel('notes--acme'), undefined)
    assert.equal(await lookup.byLabel('notes--acme'), TUNNEL)
    assert.equal(lookup.cachedByLabel('notes--acme'), TUNNEL)
    assert.equal(await lookup.byLabel('gone--acme'), null)
    assert.equal(lookup.cachedByLabel('gone--acme'), null, 'a miss is cached as null')
    assert.deepEqual(asked, ['notes--acme', 'gone--acme'])
    lookup.invalidate()
    assert.equal(lookup.cachedByLabel('notes--acme'), undefined)
  })
})
