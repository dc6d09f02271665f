// The listings in flight per tunnel and session: counted, given back once each, and forgotten
// when none is left; and the listing expected after the server says its tools changed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EXPECT_LISTING_MS, PendingListings } from '../../src/edge/pending-listings.js'

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

  it('expects a listing after the tools changed, until one comes or the time is up', () => {
    let now = 1_000
    const pending = new PendingListings(() => now)
    pending.expect('tun_1', 's1')
    assert.equal(pending.has('tun_1', 's1'), true)
    assert.equal(pending.has('tun_1', 's2'), false)
    now += EXPECT_LISTING_MS - 1
    assert.equal(pending.has('tun_1', 's1'), true)
    now += 1
    assert.equal(pending.has('tun_1', 's1'), false, 'lapsed')
    assert.equal(pending.size, 0, 'and forgotten')
    // The listing came: its own count holds from there, and its end ends the wait.
    pending.expect('tun_1', 's1')
    const done = pending.add('tun_1', 's1')
    done()
    assert.equal(pending.has('tun_1', 's1'), false)
  })

  it('sweeps lapsed expectations, however many sessions the tools changed in', () => {
    let now = 0
    const pending = new PendingListings(() => now)
    for (let i = 0; i < 5_000; i++) pending.expect('tun_1', `s${i}`)
    now += EXPECT_LISTING_MS
    pending.expect('tun_1', 'last')
    assert.equal(pending.size, 1)
    // Noting one costs the same however many are held: only lapsed ones are visited.
    for (let i = 0; i < 5_000; i++) pending.expect('tun_1', `t${i}`)
    assert.equal(pending.size, 5_001)
  })
})
