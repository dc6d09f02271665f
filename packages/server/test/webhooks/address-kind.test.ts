/**
 * Tests of `addressKind`: every range the URL guard refuses, IPv6 forms that embed a refused
 * IPv4 address, and public addresses on both sides of each range's edge.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { addressKind } from '../../src/webhooks/address-kind.js'
import type { AddressKind } from '../../src/webhooks/address-kind.js'

const CASES: readonly (readonly [string, AddressKind | null])[] = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.15.255.255', null],
  ['172.32.0.0', null],
  ['192.168.1.1', 'private'],
  ['192.169.0.1', null],
  ['169.254.1.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['100.63.255.255', null],
  ['100.128.0.0', null],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['1.1.1.1', null],
  ['8.8.8.8', null],
  ['93.184.215.14', null],
  ['223.255.255.255', null],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', null],
  ['::127.0.0.1', 'loopback'],
  ['::8.8.8.8', 'reserved'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::808:808', null],
  ['64:ff9b:1::1', 'private'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::253', 'metadata'],
  ['fd00:ec2::23', 'metadata'],
  ['fd00:ec2::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', null],
  ['100::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['2606:4700:4700::1111', null],
  ['2a00:1450:4001:80b::200e', null],
]

describe('addressKind', () => {
  for (const [address, kind] of CASES) {
    it(`${address} is ${kind ?? 'public'}`, () => {
      assert.equal(addressKind(address), kind)
    })
  }

  it('calls anything that is not an IP literal reserved, so it is never connected to', () => {
    for (const text of ['localhost', '', '1.2.3', '999.1.1.1', '::g', 'example.com']) {
      assert.equal(addressKind(text), 'reserved', text)
    }
  })
})
