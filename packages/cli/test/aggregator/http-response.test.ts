/**
 * How the aggregator's HTTP client reads answers: the message events of an SSE body (priming
 * events and other types passed over, events past the bound reported), the messages of a JSON
 * answer, and the error inside an error body.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { jsonRpcErrorIn, messagesIn, readSseData } from '../../src/aggregator/http-response.js'

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part)
}

describe('readSseData', () => {
  it('reads a body, skipping priming events and other event types', async () => {
    const parts = [
      'id: p\ndata: \n\n',
      'event: ping\ndata: 1\n\ndata: {"x":1}\n\n',
      'data: {"y":2}\n\n',
    ]
    const seen: [string, number][] = []
    await readSseData(chunks(...parts), {
      onData: (data, bytes) => seen.push([data, bytes]),
      onDropped: () => assert.fail('nothing is past the bound'),
    })
    // Bytes are those read since the previous message: the first two chunks, then the third.
    const size = (s: string): number => Buffer.byteLength(s)
    assert.deepEqual(seen, [
      ['{"x":1}', size(parts[0]!) + size(parts[1]!)],
      ['{"y":2}', size(parts[2]!)],
    ])
  })

  it('skips an event past the bound, reports it, and reads on', async () => {
    const seen: string[] = []
    let dropped = 0
    await readSseData(
      chunks(`data: ${'x'.repeat(200)}\n`, '\ndata: after\n\n'),
      { onData: (data) => seen.push(data), onDropped: () => dropped++ },
      100,
    )
    assert.deepEqual(seen, ['after'])
    assert.equal(dropped, 1)
  })

  it('keeps where the stream can be resumed from, across bodies, empty ids passed over', async () => {
    const cursor = { lastEventId: null as string | null, retryMs: null as number | null }
    const handlers = { onData: () => {}, onDropped: () => {}, cursor }
    // An event without data still moves the cursor; one cut off before its blank line does not.
    await readSseData(chunks('id: a\nretry: 300\n\n', 'data: {}\n\nid: b\ndata: x'), handlers)
    assert.deepEqual(cursor, { lastEventId: 'a', retryMs: 300 })
    await readSseData(chunks('data: {}\n\n', 'id:\ndata: {}\n\n'), handlers)
    assert.deepEqual(cursor, { lastEventId: 'a', retryMs: 300 }, 'a body without ids keeps it')
    await readSseData(chunks('id: c\nretry: 0\ndata: \n\n'), handlers)
    assert.deepEqual(cursor, { lastEventId: 'c', retryMs: 0 })
  })
})

describe('messagesIn', () => {
  it('keeps valid messages, says why it skips the others, and names a text that is not JSON-RPC', () => {
    assert.deepEqual(messagesIn('[{"jsonrpc":"2.0","id":1,"result":{}},{"id":2}]'), {
      messages: [{ jsonrpc: '2.0', id: 1, result: {} }],
      skipped: ['the "jsonrpc" member must be "2.0"'],
    })
    assert.equal(messagesIn('<html>'), 'parse_error')
    assert.equal(messagesIn('42'), 'invalid_request')
  })

  it('turns an answer that is not valid JSON-RPC into an error for its id', () => {
    const read = messagesIn('[{"jsonrpc":"2.0","id":5,"result":null},{"jsonrpc":"2.0","error":1}]')
    assert.ok(typeof read === 'object')
    assert.equal(read.skipped.length, 2)
    assert.equal(read.messages.length, 1)
    const answer = read.messages[0] as { id: unknown; error: { code: number; message: string } }
    assert.equal(answer.id, 5)
    assert.equal(answer.error.code, -32603)
    assert.match(
      answer.error.message,
      /answer is not valid JSON-RPC \(a result must be an object\)/,
    )
  })

  it('turns an answer nested too deep to write again into an error for its id', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    const read = messagesIn(`{"jsonrpc":"2.0","id":7,"result":{"deep":${deep}}}`)
    assert.ok(typeof read === 'object')
    assert.equal(read.messages.length, 1)
    const answer = read.messages[0] as { id: unknown; error: { code: number; message: string } }
    assert.equal(answer.id, 7)
    assert.equal(answer.error.code, -32603)
    assert.match(answer.error.message, /deeper than 1000 levels/)
    // What is forwarded can be written.
    assert.doesNotThrow(() => JSON.stringify(read.messages))
    assert.deepEqual(messagesIn(`{"jsonrpc":"2.0","method":"x","params":{"a":${deep}}}`), {
      messages: [],
      skipped: ['nested deeper than 1000 levels'],
    })
  })
})

describe('jsonRpcErrorIn', () => {
  it('finds the error of an error body, leniently, and nothing in other text', () => {
    assert.deepEqual(jsonRpcErrorIn('{"error":{"code":-32602,"message":"bad","data":1}}'), {
      code: -32602,
      message: 'bad',
      data: 1,
    })
    assert.equal(jsonRpcErrorIn('kaput'), undefined)
    assert.equal(jsonRpcErrorIn('{"error":"kaput"}'), undefined)
  })
})
