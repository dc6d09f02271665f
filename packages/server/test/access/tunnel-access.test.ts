/**
 * Tests of the access settings' parser and the allowlist check: what owners may type, what is
 * refused with a message naming the field, and which caller addresses an allowlist admits.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AccessInputError,
  allowlistAdmits,
  parseAccessMode,
  parseAllowlist,
  parseCidr,
} from '../../src/access/tunnel-access.js'

describe('tunnel access settings', () => {
  it('accepts the three modes and nothing else', () => {
    for (const mode of ['oauth', 'token', 'public']) assert.equal(parseAccessMode(mode), mode)
    for (const bad of ['OAUTH', 'open', '', null, 1, ['oauth']]) {
      assert.throws(() => parseAccessMode(bad), AccessInputError)
    }
  })

  it('normalises addresses and CIDRs, refusing malformed ones', () => {
    assert.equal(parseCidr('10.0.0.1'), '10.0.0.1/32')
    assert.equal(parseCidr(' 2001:DB8::/32 '), '2001:db8::/32')
    assert.equal(parseCidr('::1'), '::1/128')
    for (const bad of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/-1',
      '10.0.0.0/',
      '10.0.0/8',
      'host',
      '1.2.3.4/8/8',
      '',
      'x'.repeat(100),
      7,
    ]) {
      assert.throws(() => parseCidr(bad), /not an IP address or CIDR/)
    }
  })

  it('reads lists as arrays or text, deduplicated and bounded', () => {
    assert.deepEqual(parseAllowlist('10.0.0.0/8, 10.0.0.0/8\n::1'), ['10.0.0.0/8', '::1/128'])
    assert.deepEqual(parseAllowlist([]), [])
    assert.deepEqual(parseAllowlist(''), [])
    assert.throws(
      () => parseAllowlist(Array.from({ length: 65 }, (_, i) => `10.0.0.${i}`)),
      /at most 64/,
    )
    assert.throws(() => parseAllowlist({}), /must be an array/)
  })

  it('admits callers inside the list, IPv4-mapped IPv6 included', () => {
    const list = ['127.0.0.0/8', '2001:db8::/32']
    assert.equal(allowlistAdmits([], '203.0.113.9'), true)
    assert.equal(allowlistAdmits(list, '127.0.0.1'), true)
    assert.equal(allowlistAdmits(list, '::ffff:127.0.0.1'), true)
    assert.equal(allowlistAdmits(list, '2001:db8::5'), true)
    assert.equal(allowlistAdmits(list, '203.0.113.9'), false)
    assert.equal(allowlistAdmits(list, '::1'), false)
    assert.equal(allowlistAdmits(list, 'not an address'), false)
  })
})
