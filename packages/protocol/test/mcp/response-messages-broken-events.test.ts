// A response's SSE events that are not JSON: once one was met, the rest are checked before they
// are parsed, so that a stream of short broken events does not pay JSON.parse's exception for each
// (some eight times a short message's parse); the messages among them are still read.
import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import { ResponseMessages, type ClassifiedMessage } from '../../src/index.js'

const encoder = new TextEncoder()

describe('ResponseMessages on SSE events that are not JSON', () => {
  it('asks JSON.parse about broken short events once per response, and still reads messages', () => {
    const seen: ClassifiedMessage[] = []
    const messages = new ResponseMessages({ kind: 'sse', onMessage: (m) => seen.push(m) })
    const parse = mock.method(JSON, 'parse')
    try {
      const broken = 'data:{x}\n\n'.repeat(1_000)
      const message = 'data:{"jsonrpc":"2.0","method":"notifications/progress"}\n\n'
      messages.push(encoder.encode(broken + message + broken))
      messages.end()
      // The first broken event and the one message; none of the other 1,999.
      assert.equal(parse.mock.callCount(), 2)
    } finally {
      parse.mock.restore()
    }
    assert.deepEqual(
      seen.map((m) => m.kind),
      ['notification'],
    )
  })

  it('parses long broken events as it did: past 4,096 characters the parse costs more than the refusal', () => {
    const messages = new ResponseMessages({ kind: 'sse', onMessage: () => {} })
    const parse = mock.method(JSON, 'parse')
    try {
      const long = `data:{"a":"${'x'.repeat(5_000)}"\n\n`
      messages.push(encoder.encode(long.repeat(3)))
      messages.end()
      assert.equal(parse.mock.callCount(), 3)
    } finally {
      parse.mock.restore()
    }
  })

  it('checks broken events nested as deep as they are long without throwing', () => {
    // A check that recursed overflowed the stack here, out of push (found by a review).
    const messages = new ResponseMessages({ kind: 'sse', onMessage: () => {} })
    const deep = `data:x\n\ndata:${'['.repeat(4_096)}\n\ndata:${'{"a":'.repeat(800)}\n\n`
    assert.doesNotThrow(() => messages.push(encoder.encode(deep)))
    messages.end()
  })

  it('reads a stream of messages without a check, as before', () => {
    const seen: ClassifiedMessage[] = []
    const messages = new ResponseMessages({ kind: 'sse', onMessage: (m) => seen.push(m) })
    const message = 'data:{"jsonrpc":"2.0","id":1,"result":{}}\n\n'
    messages.push(encoder.encode(message.repeat(50)))
    messages.end()
    assert.equal(seen.length, 50)
  })
})
