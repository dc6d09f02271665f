/**
 * Which client a request counts against: the peer address, or behind trusted proxies the first
 * X-Forwarded-For entry (from the right) that is not a trusted proxy; IPv6 keyed by /64;
 * IPv4-mapped IPv6 as plain IPv4.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import {
  ClientAddresses,
  networkKeyOf,
  networkOfRateKey,
  parseProxyEntry,
  rateKeyOf,
} from '../../src/http/client-addresses.js'

function req(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage
}

describe('ClientAddresses', () => {
  const loopback = new ClientAddresses()

  it('is the peer address for a direct client, whatever X-Forwarded-For says', () => {
    assert.equal(loopback.rateKey(req('203.0.113.7')), '203.0.113.7')
    assert.equal(loopback.rateKey(req('203.0.113.7', '198.51.100.1')), '203.0.113.7')
    assert.equal(loopback.rateKey(req('::ffff:203.0.113.7')), '203.0.113.7')
  })

  it('reads X-Forwarded-For from a trusted proxy (loopback by default)', () => {
    assert.equal(loopback.of(req('127.0.0.1', '10.0.0.1, 198.51.100.1')), '198.51.100.1')
    assert.equal(loopback.of(req('::1', '198.51.100.2')), '198.51.100.2')
    assert.equal(loopback.of(req('::ffff:127.0.0.1', '198.51.100.3')), '198.51.100.3')
    assert.equal(loopback.of(req('127.0.0.1', 'not-an-ip')), '127.0.0.1')
    assert.equal(loopback.of(req('127.0.0.1')), '127.0.0.1')
  })

  it('walks past every trusted hop, and no further than the first untrusted one', () => {
    const lb = new ClientAddresses(['10.0.0.0/8', '127.0.0.1'])
    // client → (spoofed entry) → 203.0.113.9 → LB 10.1.1.1 → Caddy 127.0.0.1
    assert.equal(lb.of(req('127.0.0.1', '6.6.6.6, 203.0.113.9, 10.1.1.1')), '203.0.113.9')
    // From a peer that is not trusted, the header is ignored.
    assert.equal(lb.of(req('192.0.2.1', '10.1.1.1')), '192.0.2.1')
    // With no trusted proxies at all, the socket is the client.
    assert.equal(new ClientAddresses([]).of(req('127.0.0.1', '198.51.100.1')), '127.0.0.1')
  })

  it('groups IPv6 clients by /64', () => {
    assert.equal(loopback.rateKey(req('2001:db8:0:1::5')), '2001:db8:0:1::/64')
    assert.equal(loopback.rateKey(req('2001:db8:0:1:aaaa:bbbb:cccc:dddd')), '2001:db8:0:1::/64')
    assert.equal(loopback.rateKey(req('2001:0db8::1')), '2001:db8:0:0::/64')
    assert.equal(loopback.rateKey(req('fe80::1%eth0')), 'fe80:0:0:0::/64')
    assert.equal(loopback.rateKey(req('::1', '2001:db8:1:2:3:4:5:6')), '2001:db8:1:2::/64')
  })

  it('reads an IPv6 address with an IPv4 tail, and an IPv4-mapped one in any spelling', () => {
    // The :: stands for one group here: the tail is two.
    assert.equal(rateKeyOf('1:2::3:4:5:6.7.8.9'), '1:2:0:3::/64')
    assert.equal(rateKeyOf('::ffff:c000:207'), '192.0.2.7')
    assert.equal(rateKeyOf('0:0:0:0:0:FFFF:192.0.2.7'), '192.0.2.7')
    assert.equal(loopback.of(req('::ffff:c000:207')), '192.0.2.7')
  })

  it('groups clients into networks: IPv4 by /24, IPv6 by /48', () => {
    assert.equal(networkKeyOf('203.0.113.7'), '203.0.113.0/24')
    assert.equal(networkKeyOf('203.0.113.250'), '203.0.113.0/24')
    assert.notEqual(networkKeyOf('203.0.114.7'), networkKeyOf('203.0.113.7'))
    assert.equal(networkKeyOf('::ffff:203.0.113.7'), '203.0.113.0/24')
    const site = new Set<string>()
    for (let i = 0; i < 300; i++) site.add(networkKeyOf(`2001:db8:5:${i.toString(16)}::${i}`))
    assert.deepEqual([...site], ['2001:db8:5::/48'])
    assert.equal(networkKeyOf('2001:DB8:0005:00ff:1::1%eth0'), '2001:db8:5::/48')
    assert.equal(networkKeyOf('2001:db8:6::1'), '2001:db8:6::/48')
    assert.equal(networkKeyOf('not-an-ip'), 'not-an-ip')
  })

  it('finds the network of a rate-limit key', () => {
    for (const address of [
      '203.0.113.7',
      '::ffff:203.0.113.7',
      '2001:DB8:0005:00ff:1::1%eth0',
      '2001:db8:6::1',
      '::1',
      'fe80::1',
    ]) {
      assert.equal(networkOfRateKey(rateKeyOf(address)), networkKeyOf(address), address)
    }
    assert.equal(networkOfRateKey('unknown'), 'unknown')
    assert.equal(networkOfRateKey('2001:db8:5::/48'), '2001:db8:5::/48')
  })

  it('parses proxy entries and refuses anything else', () => {
    assert.deepEqual(parseProxyEntry('10.0.0.0/8'), ['10.0.0.0', 8, 'ipv4'])
    assert.deepEqual(parseProxyEntry('fd00::/8'), ['fd00::', 8, 'ipv6'])
    assert.deepEqual(parseProxyEntry('192.0.2.7'), ['192.0.2.7', null, 'ipv4'])
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '::/129', '1.2.3.4/x', ''])
      assert.equal(parseProxyEntry(bad), null, bad)
    assert.throws(() => new ClientAddresses(['nope']), /not an IP address/)
  })
})
