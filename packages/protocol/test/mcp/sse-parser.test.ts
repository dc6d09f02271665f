// The one SSE reader: golden streams, line ends split across chunks, ids that carry over, and
// hostile input (lines that never end, events past the bound, bytes split inside a character).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SseParser, SSE_PIECE_COST, type SseEvent } from '../../src/index.js'

function all(chunks: readonly (string | Uint8Array)[], max?: number): SseEvent[] {
  const p = new SseParser(max === undefined ? {} : { maxEventChars: max })
  const out: SseEvent[] = []
  for (const c of chunks) out.push(...p.push(typeof c === 'string' ? Buffer.from(c) : c))
  out.push(...p.end())
  return out
}

describe('SseParser', () => {
  it("reads MCP events: data joined, event, id and an event's retry kept, comments skipped", () => {
    assert.deepEqual(
      all([': priming\nretry: 100\nid: 1\nevent: message\ndata: {"a":\ndata: 1}\n\ndata: x\n\n']),
      [
        { event: 'message', data: '{"a":\n1}', id: '1', retry: '100' },
        { event: 'message', data: 'x', id: '1' },
      ],
    )
    // A retry that is not digits is ignored, as browsers do.
    assert.deepEqual(all(['retry: 1s\ndata: y\n\n']), [{ event: 'message', data: 'y', id: null }])
  })

  it('accepts LF, CR and CRLF, split anywhere', () => {
    const text = 'event: e\r\ndata: one\r\n\r\ndata: two\r\rdata: three\n\n'
    const expected = [
      { event: 'e', data: 'one', id: null },
      { event: 'message', data: 'two', id: null },
      { event: 'message', data: 'three', id: null },
    ]
    for (let cut = 0; cut < text.length; cut++) {
      assert.deepEqual(all([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`)
    }
    assert.deepEqual(all(text.split('')), expected)
  })

  it('reads LF, CR and CRLF mixed in one stream, cut at every point', () => {
    const text =
      'id: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: keep-alive\n\nevent: other\ndata: x\n\rdata: y\r\r\n'
    const expected = [
      { event: 'message', data: '{"a":\n1}', id: '1' },
      { event: 'other', data: 'x', id: '1' },
      { event: 'message', data: 'y', id: '1' },
    ]
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser()
      const events = [...p.pushText(text.slice(0, cut)), ...p.pushText(text.slice(cut))]
      assert.deepEqual(events, expected, `cut at ${cut}`)
    }
  })

  it('returns an event from the chunk that brings its blank line', () => {
    const p = new SseParser()
    assert.deepEqual(p.push(Buffer.from('data: first\n')), [])
    assert.deepEqual(p.push(Buffer.from('\n')), [{ event: 'message', data: 'first', id: null }])
  })

  it('decodes a character split across chunks', () => {
    const bytes = Buffer.from('data: héllo 🦡\n\n')
    assert.deepEqual(all([bytes.subarray(0, 8), bytes.subarray(8, 17), bytes.subarray(17)]), [
      { event: 'message', data: 'héllo 🦡', id: null },
    ])
  })

  it('dispatches no event without data, and drops an unfinished one at the end', () => {
    assert.deepEqual(all(['id: 5\n\nevent: x\n\ndata: cut']), [])
  })

  it('drops an event past the bound, counts it, and reads the next one', () => {
    const p = new SseParser({ maxEventChars: 100 })
    const out = [
      ...p.push(Buffer.from('data: ' + 'x'.repeat(60) + '\ndata: ' + 'y'.repeat(60) + '\n\n')),
      ...p.push(Buffer.from('data: ok\n\n')),
    ]
    assert.deepEqual(out, [{ event: 'message', data: 'ok', id: null }])
    assert.equal(p.dropped, 1)
  })

  it('never holds a line that does not end beyond the bound', () => {
    const p = new SseParser({ maxEventChars: 1000 })
    for (let i = 0; i < 1000; i++) assert.deepEqual(p.push(Buffer.alloc(1000, 0x61)), [])
    assert.equal(p.dropped, 1)
    assert.deepEqual(p.push(Buffer.from('\n\ndata: after\n\n')), [
      { event: 'message', data: 'after', id: null },
    ])
  })

  it('counts the pieces it holds: a line or data sent a byte at a time reaches the bound sooner', () => {
    const p = new SseParser({ maxEventChars: 1000 })
    for (let i = 0; i < 100; i++) p.push(Buffer.from('a'))
    assert.equal(p.dropped, 1, 'a line of 100 one-byte pieces holds 100 strings')
    p.push(Buffer.from('\n\n'))
    for (let i = 0; i < 100; i++) p.push(Buffer.from('data:\n'))
    assert.equal(p.dropped, 2, 'so do 100 empty data lines')
    assert.deepEqual(p.push(Buffer.from('\ndata: after\n\n')), [
      { event: 'message', data: 'after', id: null },
    ])
  })

  it('says what it holds, and drops the event being read when asked', () => {
    const p = new SseParser()
    assert.deepEqual(p.push(Buffer.from('data: 12345\ndata: 67')), [])
    // A data line and a piece of a line held, each costing SSE_PIECE_COST more.
    assert.equal(p.heldChars, '12345\n'.length + 'data: 67'.length + 2 * SSE_PIECE_COST)
    p.discard()
    assert.equal(p.heldChars, 0)
    assert.equal(p.dropped, 1)
    assert.deepEqual(p.push(Buffer.from('89\n\ndata: next\n\n')), [
      { event: 'message', data: 'next', id: null },
    ])
    assert.equal(p.heldChars, 0)
  })

  it('keeps what a client resumes with: the last ended event id and retry, data or not', () => {
    const p = new SseParser()
    assert.equal(p.lastEventId, null)
    assert.equal(p.reconnectionTime, null)
    // An event without data is never dispatched, but its id and retry count (WHATWG).
    assert.deepEqual(p.push(Buffer.from('id: a1\nretry: 250\n\n')), [])
    assert.equal(p.lastEventId, 'a1')
    assert.equal(p.reconnectionTime, 250)
    // An id takes effect at its event's blank line, not before.
    p.push(Buffer.from('id: a2\ndata: x'))
    assert.equal(p.lastEventId, 'a1')
    p.push(Buffer.from('\n\n'))
    assert.equal(p.lastEventId, 'a2')
    // A later event without an id keeps the last one; a bad retry changes nothing.
    p.push(Buffer.from('retry: soon\ndata: y\n\n'))
    assert.equal(p.lastEventId, 'a2')
    assert.equal(p.reconnectionTime, 250)
    // A stream cut inside an event leaves its id unused.
    p.push(Buffer.from('id: a3\nretry: 9'))
    p.end()
    assert.equal(p.lastEventId, 'a2')
  })
})
