/**
 * Which client a request counts against: the peer address, or behind a proxy on loopback the
 * last X-Forwarded-For entry; IPv6 grouped by /64; IPv4-mapped IPv6 as plain IPv4.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import { clientRateKey } from '../../src/app/client-rate-key.js'

function req(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage
}

describe('clientRateKey', () => {
  it('is the peer address for a direct client, whatever X-Forwarded-For says', () => {
    assert.equal(clientRateKey(req('203.0.113.7')), '203.0.113.7')
    assert.equal(clientRateKey(req('203.0.113.7', '198.51.100.1')), '203.0.113.7')
    assert.equal(clientRateKey(req('::ffff:203.0.113.7')), '203.0.113.7')
  })

  it('trusts the last X-Forwarded-For entry from a proxy on loopback', () => {
    assert.equal(clientRateKey(req('127.0.0.1', '10.0.0.1, 198.51.100.1')), '198.51.100.1')
    assert.equal(clientRateKey(req('::1', '198.51.100.2')), '198.51.100.2')
    assert.equal(clientRateKey(req('::ffff:127.0.0.1', '198.51.100.3')), '198.51.100.3')
    assert.equal(clientRateKey(req('127.0.0.1', 'not-an-ip')), '127.0.0.1')
    assert.equal(clientRateKey(req('127.0.0.1')), '127.0.0.1')
  })

  it('groups IPv6 clients by /64', () => {
    assert.equal(clientRateKey(req('2001:db8:0:1::5')), '2001:db8:0:1::/64')
    assert.equal(clientRateKey(req('2001:db8:0:1:aaaa:bbbb:cccc:dddd')), '2001:db8:0:1::/64')
    assert.equal(clientRateKey(req('2001:0db8::1')), '2001:db8:0:0::/64')
    assert.equal(clientRateKey(req('fe80::1%eth0')), 'fe80:0:0:0::/64')
    assert.equal(clientRateKey(req('::1', '2001:db8:1:2:3:4:5:6')), '2001:db8:1:2::/64')
  })
})
