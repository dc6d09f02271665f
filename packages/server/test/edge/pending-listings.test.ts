// The listings in flight per tunnel and session: counted, given back once each, and forgotten
// when none is left.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PendingListings } from '../../src/edge/pending-listings.js'

describe('PendingListings', () => {
  it('counts listings per tunnel and session until each is done, once', () => {
    const pending = new PendingListings()
    const first = pending.add('tun_1', 's1')
    const second = pending.add('tun_1', 's1')
    assert.equal(pending.has('tun_1', 's1'), true)
    assert.equal(pending.has('tun_1', 's2'), false)
    assert.equal(pending.has('tun_2', 's1'), false)
    first()
    first() // a second call gives nothing back twice
    assert.equal(pending.has('tun_1', 's1'), true)
    second()
    assert.equal(pending.has('tun_1', 's1'), false)
    assert.equal(pending.size, 0)
  })

  it('keeps requests without a session under their tunnel, apart from sessions', () => {
    const pending = new PendingListings()
    const done = pending.add('tun_1', undefined)
    assert.equal(pending.has('tun_1', undefined), true)
    assert.equal(pending.has('tun_1', ''), true, 'an empty session id is no session')
    assert.equal(pending.has('tun_1', 's1'), false)
    // A session id holding the separator cannot pass for another tunnel's key.
    assert.equal(pending.has('tun', '1\n'), false)
    done()
    assert.equal(pending.has('tun_1', undefined), false)
  })
})
