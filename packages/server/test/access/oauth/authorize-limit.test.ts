/**
 * The authorization endpoint's per-address budget under a flood of addresses: when every place
 * holds a spent bucket, newcomers share their network's overflow bucket, so a flood from one
 * IPv6 /48 does not refuse a newcomer from another network.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AUTHORIZE_REQUESTS_PER_MINUTE,
  AuthorizeLimit,
} from '../../../src/access/oauth/authorize-limit.js'
import { RateLimiter } from '../../../src/http/rate-limiter.js'

const PLACES = 4

describe('AuthorizeLimit flooded past its places', () => {
  it('throttles the flooding network as a group and serves other networks', () => {
    const clock = 0
    const limit = new AuthorizeLimit({
      limiter: (_name, o) => new RateLimiter({ ...o, now: () => clock, maxKeys: PLACES }),
    })
    // Many /64s of one /48 each spend a request: every place holds a bucket not refilled, and the
    // rest of the flood empties that /48's overflow bucket.
    for (let i = 0; i < PLACES + AUTHORIZE_REQUESTS_PER_MINUTE; i++) {
      limit.take(`2001:db8:1:${i.toString(16)}::/64`)
    }
    assert.notEqual(limit.take('2001:db8:1:ffff::/64'), null, 'the flooding /48 is held back')
    assert.equal(limit.take('2001:db8:2:1::/64'), null, 'another /48 is served')
    assert.equal(limit.take('198.51.100.7'), null, 'an IPv4 client is served')
  })
})
