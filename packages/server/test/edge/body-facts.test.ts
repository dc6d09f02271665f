// What the edge derives from a classified body: tool calls (requests only), session starts, and
// the bodies it refuses to forward.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isBodyProblem, readJsonRpcBody, type JsonRpcBody } from '@burrow/protocol'
import { bodyRefusal, isInitialize, requestsOf, toolCallCount } from '../../src/edge/body-facts.js'

function read(value: unknown): JsonRpcBody {
  const r = readJsonRpcBody(Buffer.from(JSON.stringify(value)))
  if (isBodyProblem(r)) throw new Error(r.reason)
  return r
}

const call = (id?: number) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  method: 'tools/call',
  params: { name: 't' },
})

describe('body facts', () => {
  it('counts tool-call requests, never notifications', () => {
    assert.equal(toolCallCount(read(call(1))), 1)
    assert.equal(toolCallCount(read(call())), 0)
    assert.equal(toolCallCount(read([call(1), call(), call(2), call()])), 2)
    assert.equal(toolCallCount(read([call(1), { jsonrpc: '2.0', method: 'notifications/x' }])), 1)
    assert.equal(toolCallCount(null), 0)
    assert.deepEqual(
      requestsOf(read([call(1), call()])).map((r) => r.id),
      [1],
    )
  })

  it('an initialize opens a session only when sent alone', () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }
    assert.equal(isInitialize(read(init)), true)
    assert.equal(isInitialize(read([init])), false)
    assert.equal(isInitialize(read(call(1))), false)
  })

  it('refuses invalid messages, batches after 2025-03-26, and batches holding an initialize or a 2026-07-28 message', () => {
    assert.match(bodyRefusal(read({ id: 1, method: 'x' }), undefined)!, /invalid JSON-RPC message/)
    assert.match(bodyRefusal(read(call()), undefined)!, /tools\/call is a request: it needs an id/)
    assert.equal(
      bodyRefusal(read({ jsonrpc: '2.0', method: 'notifications/cancelled' }), undefined),
      null,
    )
    assert.equal(bodyRefusal(read([call(1)]), undefined), null)
    assert.equal(bodyRefusal(read([call(1)]), '2025-03-26'), null)
    assert.match(bodyRefusal(read([call(1)]), '2025-06-18')!, /not part of MCP 2025-06-18/)
    assert.match(bodyRefusal(read([call(1)]), '2026-07-28')!, /one message per request/)
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }
    assert.match(bodyRefusal(read([init]), undefined)!, /initialize/)
    assert.equal(bodyRefusal(read(call(1)), '2025-11-25'), null)
    // 2026-07-28 messages name their revision themselves: never a batch, whatever the header says.
    const modern = (id: number) => ({
      ...call(id),
      params: { name: 't', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    })
    for (const header of [undefined, '2025-03-26', '2024-11-05']) {
      assert.match(bodyRefusal(read([call(1), modern(2)]), header)!, /never a JSON-RPC batch/)
    }
    assert.equal(bodyRefusal(read(modern(1)), '2025-03-26'), null)
  })
})
