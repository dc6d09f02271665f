// --broker: the service's WebSocket origin, and every other URL refused with what is accepted.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { brokerUrl } from '../src/broker-url.js'
import { UsageError } from '../src/cli-errors.js'

/** The message `value` is refused with; fails when it is accepted. */
function refusal(value: string): string {
  try {
    const url = brokerUrl(value)
    assert.fail(`"${value}" was accepted as ${url}`)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    // Every refusal names the flag and the variable, and says what is accepted.
    assert.match(err.message, /^--broker "/)
    assert.match(err.message, /use ws:\/\/HOST\[:PORT\] or wss:\/\/HOST\[:PORT\]/)
    assert.match(err.message, /no path, query or fragment/)
    assert.match(err.message, /\(check --broker \/ BURROW_BROKER\)$/)
    return err.message
  }
}

describe('brokerUrl', () => {
  it('takes a ws(s) or http(s) origin, with or without a final slash, as the ws(s) origin', () => {
    assert.equal(brokerUrl('ws://127.0.0.1:7100'), 'ws://127.0.0.1:7100')
    assert.equal(brokerUrl('ws://127.0.0.1:7100/'), 'ws://127.0.0.1:7100')
    assert.equal(brokerUrl('http://localhost:7100'), 'ws://localhost:7100')
    assert.equal(brokerUrl('https://burrow.example.com/'), 'wss://burrow.example.com')
    assert.equal(brokerUrl('https://burrow.example.com:443'), 'wss://burrow.example.com')
    assert.equal(brokerUrl('http://burrow.example.com:443'), 'ws://burrow.example.com:443')
    assert.equal(brokerUrl('WSS://Burrow.Example.COM:8443'), 'wss://burrow.example.com:8443')
    assert.equal(brokerUrl('ws://[::1]:7100'), 'ws://[::1]:7100')
  })

  it('refuses a path, which burrowd would ignore, naming it', () => {
    assert.match(refusal('wss://host/some/path'), /has a path \(\/some\/path\)/)
    assert.match(refusal('https://host/burrow/'), /has a path \(\/burrow\/\)/)
    assert.match(refusal('ws://host//'), /has a path/)
    // burrowd's own paths between nodes: a tunnel key must not be sent there.
    assert.match(refusal('wss://host/_burrow/nodes/channels'), /has a path/)
  })

  it('refuses a query or a fragment, even an empty one', () => {
    assert.match(refusal('wss://host?token=1'), /has a query/)
    assert.match(refusal('wss://host/?'), /has a query/)
    assert.match(refusal('wss://host#top'), /has a fragment/)
    assert.match(refusal('wss://host/#'), /has a fragment/)
  })

  it('refuses credentials in the URL without printing them', () => {
    for (const value of [
      'wss://user:s3cret@host',
      'wss://user@host',
      'wss://:s3cret@host',
      'https://mtk_s3cret@host/',
      'wss://u:s3cret@evil@host',
    ]) {
      const message = refusal(value)
      assert.match(message, /user name or password/)
      assert.match(message, /--api-key \/ BURROW_API_KEY/)
      assert.doesNotMatch(message, /s3cret|user[:@]/, message)
    }
    // Nor when the slashes are left out or written as backslashes, which the URL parser reads
    // as `wss://` for these schemes (found by a hostile review: the message echoed them).
    for (const value of [
      'wss:user:s3cret@host',
      'ws:/user:s3cret@host',
      'https:\\\\user:s3cret@host',
      'http:\\user:s3cret@host',
    ]) {
      const message = refusal(value)
      assert.match(message, /user name or password/, value)
      assert.doesNotMatch(message, /s3cret|user[:@]/, message)
    }
    // Nor without a scheme.
    assert.doesNotMatch(refusal('user:s3cret@host'), /s3cret|user[:@]/)
    // Nor when the URL does not parse.
    const broken = refusal('wss://user:s3cret@ho st')
    assert.match(broken, /is not a URL/)
    assert.doesNotMatch(broken, /s3cret/)
  })

  it('refuses what is not a URL, or not of these schemes', () => {
    for (const value of ['', 'burrow.example.com', 'wss://', 'ws://:7100', 'ws://host:99999']) {
      assert.match(refusal(value), /is not a URL/, value)
    }
    for (const value of ['ftp://host', 'file:///etc/passwd', 'javascript:alert(1)', 'mailto:a@b']) {
      assert.match(refusal(value), /must start with ws:\/\/, wss:\/\/, http:\/\/ or https:\/\//)
    }
  })

  it('echoes a refused value cut short and with no terminal controls', () => {
    const long = refusal(`wss://host/${'a'.repeat(100_000)}`)
    assert.ok(long.length < 1000, `${long.length} characters`)
    assert.match(long, /…/)
    const controls = refusal('wss://host/\u001b]0;owned\u0007\u202e')
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(controls, /[\u0000-\u001f\u007f-\u009f\u202e]/)
  })
})
