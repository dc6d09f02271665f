/**
 * What the inspector keeps of a response: the messages of an SSE stream as they arrive, whatever
 * the chunk boundaries and line endings, with error answers flagged and events past the bound
 * counted as truncation; and the one message of a JSON body.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KEPT_EVENT_COST, ResponseCapture } from '../../src/inspector/response-capture.js'

const SSE = { 'content-type': 'text/event-stream' }

function capture(maxBodyBytes?: number): ResponseCapture {
  let now = 0
  return new ResponseCapture({ startedAt: 0, clock: () => now++, maxBodyBytes })
}

const STREAM =
  ': keepalive\r\n\r\n' +
  'id: 1\r\nevent: message\r\ndata: {"jsonrpc":"2.0","method":"n","params":{"a":"é€"}}\r\n\r\n' +
  'data: line one\ndata:line two\n\n' +
  'id: 3\rdata: {"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}\r\r' +
  'event: ignored-without-data\n\n' +
  'data: unterminated'

describe('ResponseCapture', () => {
  it('keeps the messages of an SSE stream split at any byte, with any line ending', () => {
    for (const size of [1, 2, 3, 7, 1000]) {
      const c = capture()
      c.head(200, SSE)
      const bytes = new TextEncoder().encode(STREAM)
      for (let i = 0; i < bytes.length; i += size) c.chunk(bytes.subarray(i, i + size))
      c.end()
      assert.deepEqual(
        c.messages.map((m) => [m.eventId, m.message]),
        [
          ['1', { jsonrpc: '2.0', method: 'n', params: { a: 'é€' } }],
          ['1', 'line one\nline two'],
          ['3', { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }],
        ],
        `chunks of ${size}`,
      )
      assert.equal(c.messageCount, 3)
      assert.equal(c.rpcError, true)
      assert.equal(c.messagesTruncated, false)
      assert.equal(c.body, null)
      assert.equal(c.bytes, bytes.length)
    }
  })

  it('shows an event as soon as its blank line arrives', () => {
    let told = 0
    const live = new ResponseCapture({ startedAt: 0, onMessage: () => told++ })
    live.head(200, SSE)
    live.chunk(new TextEncoder().encode('data: {"jsonrpc":"2.0","method":"a"}\n'))
    assert.equal(told, 0)
    live.chunk(new TextEncoder().encode('\n'))
    assert.equal(told, 1)
    assert.equal(live.messages.length, 1)
  })

  it('drops an event past the bound, marks the capture truncated, and reads on', () => {
    // Room for one short event and its cost (KEPT_EVENT_COST), not for 500 characters.
    const c = capture(200)
    c.head(200, SSE)
    c.chunk(new TextEncoder().encode(`data: ${'z'.repeat(500)}`))
    c.chunk(new TextEncoder().encode('\n\ndata: next\n\n'))
    c.end()
    assert.equal(c.messagesTruncated, true)
    assert.deepEqual(
      c.messages.map((m) => m.message),
      ['next'],
    )
  })

  it('keeps events as their text, counted, and parses them only when read', () => {
    // Found by hostile review: events were kept parsed, ten times the memory of the text counted
    // (500 answers of {"a":[{},{},…]} held 684 MiB against a 64 MiB budget).
    const c = capture()
    c.head(200, SSE)
    const data = `{"jsonrpc":"2.0","id":1,"result":{"a":[${'{},'.repeat(20_000)}{}]}}`
    c.chunk(new TextEncoder().encode(`id: 7\ndata: ${data}\n\n`))
    assert.ok(c.heldBytes >= 2 * data.length, `counted ${c.heldBytes}`)
    const [first] = c.messages
    const [again] = c.messages
    assert.equal(first?.eventId, '7')
    assert.equal((first?.message as { result: { a: unknown[] } }).result.a.length, 20_001)
    assert.deepEqual(again, first)
    assert.notEqual(again?.message, first?.message, 'a fresh parse on each read: none is kept')
  })

  it('counts what each kept event costs, so a stream of empty events stops being kept', () => {
    // Found by hostile review: an empty event (7 bytes) counted nothing, so a server streaming
    // them was kept without end (2 million held 150 MB, counted as 0).
    const c = capture()
    c.head(200, SSE)
    const empties = new TextEncoder().encode('data:\n\n'.repeat(10_000))
    for (let i = 0; i < 100; i++) c.chunk(empties)
    assert.equal(c.messageCount, 1_000_000)
    assert.equal(c.messagesTruncated, true)
    const kept = c.messages.length
    assert.equal(kept, Math.floor((256 * 1024) / KEPT_EVENT_COST))
    assert.ok(c.heldBytes >= 2 * kept * KEPT_EVENT_COST, `counted ${c.heldBytes}`)
  })

  it('counts the one message of a JSON body and flags a tool error', () => {
    const c = capture()
    c.head(200, { 'content-type': 'application/json' })
    const answer = { jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } }
    c.chunk(new TextEncoder().encode(JSON.stringify(answer)))
    c.end()
    assert.equal(c.messageCount, 1)
    assert.equal(c.rpcError, true)
    const text = capture()
    text.head(200, { 'content-type': 'application/json' })
    text.chunk(new TextEncoder().encode('not json'))
    text.end()
    assert.equal(text.messageCount, 0)
    assert.equal(text.rpcError, false)
    assert.equal(text.body?.text, 'not json')
  })
})
