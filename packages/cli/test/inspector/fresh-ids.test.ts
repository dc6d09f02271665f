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

  it('returns a body without requests, or not JSON-RPC, untouched', () => {
    for (const text of ['not json', '42', '{"jsonrpc":"2.0","method":"notifications/x"}']) {
      const body = new TextEncoder().encode(text)
      const fresh = withFreshIds(body, 'r')
      assert.equal(fresh.body, body, text)
      assert.equal(fresh.sentId, null)
    }
  })
})
