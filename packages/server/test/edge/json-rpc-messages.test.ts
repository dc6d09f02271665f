/**
 * What the edge reads of a POST body: single messages and batches, requests and notifications,
 * ids of every type, tool names, the refusal ids, and the bodies it refuses to read.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isInitialize,
  isRpcProblem,
  readRpcMessages,
  refusalIds,
  toolCallCount,
  type RpcMessages,
} from '../../src/edge/json-rpc-messages.js'

function read(value: unknown): RpcMessages {
  const result = readRpcMessages(
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  )
  if (isRpcProblem(result)) throw new Error(`unexpected problem: ${result.reason}`)
  return result
}

describe('readRpcMessages', () => {
  it('reads a single request with its id, method and tool', () => {
    assert.deepEqual(
      read({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: {} },
      }),
      { batch: false, id: 7, requests: [{ method: 'tools/call', id: 7, tool: 'echo' }] },
    )
    assert.deepEqual(read({ jsonrpc: '2.0', id: 'x', method: 'tools/list' }).requests, [
      { method: 'tools/list', id: 'x', tool: null },
    ])
  })

  it('tells notifications (no id) from requests with a null or odd id', () => {
    const notification = read({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } })
    assert.equal(notification.requests[0]?.id, undefined)
    assert.equal(refusalIds(notification), null)
    assert.equal(read({ jsonrpc: '2.0', id: null, method: 'ping' }).requests[0]?.id, null)
    for (const odd of ['{}', '[1]', 'true', 'null']) {
      const message = read(`{"jsonrpc":"2.0","id":${odd},"method":"ping"}`)
      assert.equal(message.requests[0]?.id, null, odd)
      assert.equal(refusalIds(message), null)
    }
  })

  it('reads a batch, skipping responses and non-objects, and counts its tool calls', () => {
    const batch = read([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: 'two', method: 'tools/call', params: { name: 2 } },
      { jsonrpc: '2.0', method: 'tools/call' },
      { jsonrpc: '2.0', method: 'notifications/progress' },
      { jsonrpc: '2.0', id: 'r', result: {} },
      { jsonrpc: '2.0', id: 9, method: 42 },
      'text',
      null,
      [],
    ])
    assert.equal(batch.batch, true)
    assert.deepEqual(batch.requests, [
      { method: 'tools/call', id: 1, tool: 'a' },
      { method: 'tools/call', id: 'two', tool: null },
      { method: 'tools/call', id: undefined, tool: null },
      { method: 'notifications/progress', id: undefined, tool: null },
    ])
    assert.equal(toolCallCount(batch), 3)
    assert.deepEqual(refusalIds(batch), [1, 'two'])
    assert.equal(isInitialize(batch), false)
  })

  it('answers a refused batch of notifications with one null id', () => {
    assert.equal(refusalIds(read([{ jsonrpc: '2.0', method: 'notifications/x' }])), null)
    assert.equal(refusalIds(null), null)
    assert.equal(toolCallCount(null), 0)
  })

  it('keeps the id of a single response the agent sends back', () => {
    const response = read({ jsonrpc: '2.0', id: 'sampling-3', result: {} })
    assert.deepEqual(response.requests, [])
    assert.equal(refusalIds(response), 'sampling-3')
  })

  it('recognises a single initialize only', () => {
    assert.equal(isInitialize(read({ jsonrpc: '2.0', id: 1, method: 'initialize' })), true)
    assert.equal(isInitialize(read([{ jsonrpc: '2.0', id: 1, method: 'initialize' }])), false)
    assert.equal(isInitialize(read({ jsonrpc: '2.0', method: 'notifications/initialized' })), false)
    assert.equal(isInitialize(null), false)
  })

  it('shortens huge method and tool names to what history stores', () => {
    const long = 'm'.repeat(100_000)
    const [request] = read({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: long },
    }).requests
    assert.equal(request?.tool?.length, 200)
    assert.equal(read({ jsonrpc: '2.0', id: 1, method: long }).requests[0]?.method.length, 200)
  })

  it('refuses what is not JSON-RPC: bad JSON, scalars, an empty batch', () => {
    const problem = (text: string) => {
      const result = readRpcMessages(Buffer.from(text))
      assert.ok(isRpcProblem(result), text)
      return result
    }
    assert.equal(problem('{"jsonrpc":').code, -32700)
    assert.equal(problem('').code, -32700)
    assert.equal(problem('\u0000\u0001').code, -32700)
    for (const scalar of ['1', '"x"', 'null', 'true']) assert.equal(problem(scalar).code, -32600)
    assert.match(problem('[]').reason, /at least one message/)
  })
})
