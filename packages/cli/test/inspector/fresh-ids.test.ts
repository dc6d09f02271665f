/** The fresh JSON-RPC ids a replay sends in place of the recorded ones. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { withFreshIds } from '../../src/inspector/fresh-ids.js'

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))

describe('withFreshIds', () => {
  const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes))

  it('gives every request of a body a fresh id and leaves the rest as it was', () => {
    const body = encode([
      { jsonrpc: '2.0', id: 7, method: 'initialize', params: { _meta: { x: 1 } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 8, method: 'tools/list' },
      { jsonrpc: '2.0', id: 9, result: {} },
    ])
    const fresh = withFreshIds(body, 'r')
    assert.equal(fresh.sentId, 'r')
    assert.equal(fresh.initialize, true)
    assert.deepEqual(decode(fresh.body), [
      { jsonrpc: '2.0', id: 'r', method: 'initialize', params: { _meta: { x: 1 } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'r.2', method: 'tools/list' },
      { jsonrpc: '2.0', id: 9, result: {} },
    ])
  })

  it('changes only the ids: the rest is sent as the agent wrote it, big numbers included', () => {
    // Found by hostile review: the body was parsed and written again, so a replay sent
    // 12345678901234567000 for an argument of 12345678901234567890 (and 1.5 for 1.50).
    const text =
      '[ {"jsonrpc":"2.0", "id" : 7,"method":"tools/call","params":{"name":"t","arguments":' +
      '{"n":12345678901234567890,"f":1.50,"s":"\\u00e9","id":1}}},\n' +
      ' {"jsonrpc":"2.0","method":"notifications/x","params":{"id":2}},' +
      '{"\\u0069d":"a","jsonrpc":"2.0","method":"ping"} ]'
    const fresh = withFreshIds(new TextEncoder().encode(text), 'r')
    assert.equal(
      new TextDecoder().decode(fresh.body),
      '[ {"jsonrpc":"2.0", "id" : "r","method":"tools/call","params":{"name":"t","arguments":' +
        '{"n":12345678901234567890,"f":1.50,"s":"\\u00e9","id":1}}},\n' +
        ' {"jsonrpc":"2.0","method":"notifications/x","params":{"id":2}},' +
        '{"\\u0069d":"r.2","jsonrpc":"2.0","method":"ping"} ]',
    )
    assert.equal(fresh.sentId, 'r')
  })

  it('returns a body without requests, or not JSON-RPC, untouched', () => {
    for (const text of ['not json', '42', '{"jsonrpc":"2.0","method":"notifications/x"}']) {
      const body = new TextEncoder().encode(text)
      const fresh = withFreshIds(body, 'r')
      assert.equal(fresh.body, body, text)
      assert.equal(fresh.sentId, null)
    }
  })
})
