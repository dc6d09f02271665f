/**
 * The JSON-RPC summary the inspector's list shows: method, tool and id of a request body (read
 * defensively, untrusted as it is), and whether an answer reports a failure.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isErrorAnswer,
  MAX_SUMMARY_CHARS,
  summarizeRequest,
} from '../../src/inspector/json-rpc-summary.js'

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))

describe('summarizeRequest', () => {
  it('reads method, tool name and id, and summarises batches', () => {
    assert.deepEqual(
      summarizeRequest(
        encode({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'search' } }),
      ),
      { rpcMethod: 'tools/call', toolName: 'search', rpcId: 'a' },
    )
    assert.deepEqual(
      summarizeRequest(
        encode([
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ]),
      ),
      { rpcMethod: 'notifications/initialized (+1)', toolName: null, rpcId: null },
    )
  })

  it('yields nulls for bodies that are not JSON-RPC', () => {
    const none = { rpcMethod: null, toolName: null, rpcId: null }
    for (const body of ['', '{', '42', '[]', 'null', '{"method": 5, "id": {}}']) {
      assert.deepEqual(summarizeRequest(new TextEncoder().encode(body)), none, body)
    }
  })

  it('names the tool of a valid tools/call only, and the id of an answer', () => {
    assert.deepEqual(
      summarizeRequest(
        encode({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { name: 'x' } }),
      ),
      { rpcMethod: 'tools/list', toolName: null, rpcId: 1 },
    )
    assert.deepEqual(summarizeRequest(encode({ jsonrpc: '2.0', id: 'q', result: {} })), {
      rpcMethod: null,
      toolName: null,
      rpcId: 'q',
    })
    assert.deepEqual(summarizeRequest(encode({ id: 3, method: 'tools/call' })), {
      rpcMethod: 'tools/call',
      toolName: null,
      rpcId: 3,
    })
  })

  it('cuts the names and ids an agent chose to 200 characters', () => {
    // Found by hostile review: 4 MiB tool names were kept whole, in memory and in every snapshot.
    const huge = 'x'.repeat(4 * 1024 * 1024)
    const cut = `${'x'.repeat(MAX_SUMMARY_CHARS)}…`
    assert.deepEqual(
      summarizeRequest(
        encode({ jsonrpc: '2.0', id: huge, method: 'tools/call', params: { name: huge } }),
      ),
      { rpcMethod: 'tools/call', toolName: cut, rpcId: cut },
    )
    assert.deepEqual(
      summarizeRequest(
        encode([
          { jsonrpc: '2.0', method: huge },
          { jsonrpc: '2.0', method: 'x' },
        ]),
      ),
      { rpcMethod: `${cut} (+1)`, toolName: null, rpcId: null },
    )
    // An id too large for a number is shown as its digits: cut as well.
    const digits = new TextEncoder().encode(
      `{"jsonrpc":"2.0","id":${'9'.repeat(5000)},"method":"ping"}`,
    )
    assert.equal(summarizeRequest(digits).rpcId, `${'9'.repeat(MAX_SUMMARY_CHARS)}…`)
  })

  it('tells error answers from results', () => {
    assert.equal(isErrorAnswer({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }), true)
    assert.equal(isErrorAnswer({ jsonrpc: '2.0', id: 1, result: { isError: true } }), true)
    assert.equal(isErrorAnswer([{ result: {} }, { error: {} }]), true)
    assert.equal(isErrorAnswer({ jsonrpc: '2.0', id: 1, result: { content: [] } }), false)
    assert.equal(isErrorAnswer('text'), false)
  })
})
