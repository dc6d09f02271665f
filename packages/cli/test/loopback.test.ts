// Which hosts can only be this machine: the one decision the metrics listener, the inspector and
// the tunnel's frame masking share.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isLoopbackHost, isLoopbackHostHeader } from '../src/loopback.js'

describe('isLoopbackHost', () => {
  it('accepts only names and addresses that cannot leave the machine', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', 'LOCALHOST', 'app.localhost', '::1', '[::1]'])
      assert.equal(isLoopbackHost(host), true, host)
    for (const host of ['1127.0.0.1', '127.0.0.1.evil.example', '127.attacker.example'])
      assert.equal(isLoopbackHost(host), false, host)
    for (const host of ['127.0.0.256', 'example.com', '10.0.0.1', '::', '0.0.0.0', ''])
      assert.equal(isLoopbackHost(host), false, host)
  })

  it('reads IPv4-mapped IPv6 addresses as the IPv4 address they carry', () => {
    // Found by hostile review: bound to [::ffff:7f00:1], which Node reports as
    // ::ffff:127.0.0.1, the metrics listener skipped its DNS-rebinding check.
    for (const host of [
      '::ffff:127.0.0.1',
      '[::FFFF:127.0.0.1]',
      '::ffff:7f00:1',
      '[::ffff:7f12:3401]',
    ])
      assert.equal(isLoopbackHost(host), true, host)
    for (const host of [
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '::ffff:127.0.0.1.evil.example',
      '::fffe:7f00:1',
    ])
      assert.equal(isLoopbackHost(host), false, host)
  })
})

describe('isLoopbackHostHeader', () => {
  it('reads the host of a Host header with or without its port', () => {
    assert.equal(isLoopbackHostHeader('127.0.0.1:9464'), true)
    assert.equal(isLoopbackHostHeader('localhost'), true)
    assert.equal(isLoopbackHostHeader('[::1]:9464'), true)
    assert.equal(isLoopbackHostHeader('[::ffff:7f00:1]:9464'), true)
    assert.equal(isLoopbackHostHeader('rebind.attacker.example:9464'), false)
    assert.equal(isLoopbackHostHeader(''), false)
  })
})
