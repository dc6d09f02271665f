// The edge's hostname cache: what it answers without waiting is what byLabel answered, and
// nothing before a first lookup; a label no tunnel could have is neither looked up nor cached.
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

  it('does not cache a lookup under way when the cache was dropped', async () => {
    // Found by a hostile review: a lookup begun before a tunnel was deleted (or its account's
    // plan changed) on another node, answered after the event, was cached for 5 s.
    let release: () => void = () => {}
    let stored: TunnelWithAccount | undefined = TUNNEL
    const lookup = new TunnelLookup('example.test', async () => {
      const seen = stored
      await new Promise<void>((r) => (release = r))
      return seen
    })
    const first = lookup.byLabel('notes--acme')
    await new Promise((r) => setImmediate(r))
    stored = undefined
    lookup.invalidate()
    release()
    assert.equal(await first, TUNNEL, 'the caller gets what it read')
    assert.equal(lookup.cachedByLabel('notes--acme'), undefined, 'what it read was cached')
  })

  it('neither looks up nor caches a label no tunnel could have', async () => {
    const asked: string[] = []
    const lookup = new TunnelLookup('example.test', async (subdomain, slug) => {
      asked.push(`${subdomain}--${slug}`)
      return undefined
    })
    for (const label of [
      `${'a'.repeat(16_000)}--acme`,
      `notes--${'b'.repeat(100)}`,
      '--acme',
      'a--',
    ]) {
      assert.equal(await lookup.byLabel(label), null)
      assert.equal(lookup.cachedByLabel(label), undefined, 'not cached')
    }
    assert.deepEqual(asked, [])
  })
})
