/** The service's HTTP origin from the broker URL: same host and port, ws → http, wss → https. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { serviceHttpBase } from '../../src/update/service-http-base.js'

describe('serviceHttpBase', () => {
  it('maps the broker scheme and keeps host and port, dropping any path', () => {
    assert.equal(serviceHttpBase('ws://127.0.0.1:7100'), 'http://127.0.0.1:7100')
    assert.equal(serviceHttpBase('wss://burrow.example.com'), 'https://burrow.example.com')
    assert.equal(
      serviceHttpBase('wss://burrow.example.com:8443/tunnel?x=1'),
      'https://burrow.example.com:8443',
    )
    assert.equal(serviceHttpBase('ws://[::1]:7100/'), 'http://[::1]:7100')
    assert.equal(serviceHttpBase('https://burrow.example.com/'), 'https://burrow.example.com')
  })

  it('refuses other schemes', () => {
    assert.throws(() => serviceHttpBase('ftp://example.com'), TypeError)
    assert.throws(() => serviceHttpBase('not a url'), TypeError)
  })
})
