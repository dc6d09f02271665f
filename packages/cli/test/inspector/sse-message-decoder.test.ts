/**
 * The inspector's incremental SSE reader: events are reported as soon as their blank line
 * arrives, whatever the chunk boundaries and line endings.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SseMessageDecoder, type SseEvent } from '../../src/inspector/sse-message-decoder.js'

function decodeInChunks(text: string, size: number): SseEvent[] {
  const events: SseEvent[] = []
  const decoder = new SseMessageDecoder((e) => events.push(e))
  const bytes = new TextEncoder().encode(text)
  for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.subarray(i, i + size))
  decoder.end()
  return events
}

const STREAM =
  ': keepalive\r\n\r\n' +
  'id: 1\r\nevent: message\r\ndata: {"a":"é€"}\r\n\r\n' +
  'data: line one\ndata:line two\n\n' +
  'id: 3\rdata: {"b":1}\r\r' +
  'event: ignored-without-data\n\n' +
  'data: unterminated'

describe('SseMessageDecoder', () => {
  it('reads events with any line ending, split at any byte', () => {
    const expected: SseEvent[] = [
      { id: '1', event: 'message', data: '{"a":"é€"}' },
      { id: '1', event: null, data: 'line one\nline two' },
      { id: '3', event: null, data: '{"b":1}' },
    ]
    for (const size of [1, 2, 3, 7, 1000]) {
      assert.deepEqual(decodeInChunks(STREAM, size), expected, `chunks of ${size}`)
    }
  })

  it('reports an event as soon as its blank line arrives', () => {
    const events: SseEvent[] = []
    const decoder = new SseMessageDecoder((e) => events.push(e))
    decoder.push(new TextEncoder().encode('data: first\n'))
    assert.equal(events.length, 0)
    decoder.push(new TextEncoder().encode('\n'))
    assert.equal(events.length, 1)
  })

  it('gives up a line longer than its bound instead of growing', () => {
    const events: SseEvent[] = []
    const decoder = new SseMessageDecoder((e) => events.push(e), 100)
    decoder.push(new TextEncoder().encode(`data: ${'z'.repeat(500)}`))
    assert.equal(decoder.overflowed, true)
    decoder.push(new TextEncoder().encode('\n\ndata: next\n\n'))
    assert.deepEqual(
      events.map((e) => e.data),
      ['next'],
    )
  })
})
