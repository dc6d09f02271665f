import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AnswerStates,
  MAX_ANSWER_BYTES,
  MAX_KEPT_SSE_BYTES,
  type AnswerFormat,
} from '../../src/relay/answer-states.js'

const INPUT_REQUIRED = JSON.stringify({
  jsonrpc: '2.0',
  id: 3,
  result: {
    resultType: 'input_required',
    inputRequests: { name: { method: 'elicitation/create', params: {} } },
    requestState: 'state-of-a',
  },
})
const PROGRESS = JSON.stringify({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1 },
})

/** Feed `chunks` to a reader of `format`; the states told, and whether some went unread. */
function read(format: AnswerFormat, chunks: (string | Buffer)[]) {
  const states: string[] = []
  let unread = 0
  const reader = new AnswerStates(
    format,
    (s) => states.push(s),
    () => unread++,
  )
  const readingAfter: boolean[] = []
  for (const chunk of chunks) {
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    readingAfter.push(reader.reading)
  }
  reader.end()
  return { states, unread, readingAfter }
}

/** `text` cut into pieces of `size` bytes. */
function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

describe('AnswerStates', () => {
  it('reads the state of a JSON answer, whole or in any pieces', () => {
    assert.deepEqual(read('json', [INPUT_REQUIRED]).states, ['state-of-a'])
    for (const size of [1, 5, 13, 14, 15, 64])
      assert.deepEqual(read('json', pieces(INPUT_REQUIRED, size)).states, ['state-of-a'], `${size}`)
  })

  it('reads the states of a batch answer', () => {
    const second = INPUT_REQUIRED.replace('state-of-a', 'state-2').replace('"id":3', '"id":4')
    assert.deepEqual(read('json', [`[${INPUT_REQUIRED},${second}]`]).states, [
      'state-of-a',
      'state-2',
    ])
  })

  it('reads the state of an SSE answer after progress, whatever its pieces and line ends', () => {
    for (const end of ['\n', '\r\n', '\r']) {
      const stream = `event: message${end}data: ${PROGRESS}${end}${end}: keep-alive${end}${end}data: ${INPUT_REQUIRED}${end}${end}`
      for (const size of [1, 7, 14, 100, stream.length]) {
        const { states } = read('sse', pieces(stream, size))
        assert.deepEqual(states, ['state-of-a'], `${JSON.stringify(end)} in pieces of ${size}`)
      }
    }
  })

  it('reads no SSE events of a stream that hands out no state', () => {
    const events = Array.from({ length: 20 }, () => `data: ${PROGRESS}\n\n`)
    const { states, readingAfter } = read('sse', events)
    assert.deepEqual(states, [])
    assert.ok(
      readingAfter.every((r) => !r),
      'never started reading events',
    )
  })

  it('stops reading events at the boundary after the one that named a state', () => {
    const { readingAfter } = read('sse', [
      `data: ${INPUT_REQUIRED.slice(0, 40)}`,
      `${INPUT_REQUIRED.slice(40)}\n`,
      '\n',
      `data: ${PROGRESS}\n\n`,
    ])
    assert.deepEqual(readingAfter, [false, true, false, false])
  })

  it('tells only result states, not a request or notification naming one', () => {
    const notification = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { requestState: 'not-handed-out' },
    })
    assert.deepEqual(read('json', [notification]).states, [])
    assert.deepEqual(read('sse', [`data: ${notification}\n\n`]).states, [])
  })

  it('says when an answer naming a state is too large to read', () => {
    const padding = 'x'.repeat(MAX_ANSWER_BYTES)
    const big = INPUT_REQUIRED.replace('"inputRequests"', `"pad":"${padding}","inputRequests"`)
    const json = read('json', pieces(big, 64 * 1024))
    assert.deepEqual(json, { states: [], unread: 1, readingAfter: json.readingAfter })
    const sse = read('sse', pieces(`data: ${big}\n\n`, 64 * 1024))
    assert.equal(sse.unread, 1)
    assert.deepEqual(sse.states, [])
    // A large answer that names no state is no concern.
    assert.equal(read('json', pieces(JSON.stringify({ pad: padding }), 64 * 1024)).unread, 0)
  })

  it('keeps little of a stream written a byte at a time (found by a hostile review)', () => {
    // A server writing one byte per chunk, with no event boundary a chunk could show, had every
    // byte kept as a Buffer of its own, up to 4 MiB of them (some 400 MB).
    const reader = new AnswerStates(
      'sse',
      () => {},
      () => {},
    )
    let most = 0
    const byte = Buffer.from('x')
    reader.push(Buffer.from('data: '))
    for (let i = 0; i < 200_000; i++) {
      reader.push(byte)
      most = Math.max(most, reader.held)
    }
    assert.ok(most <= MAX_KEPT_SSE_BYTES, `${most} kept`)
    const json = new AnswerStates(
      'json',
      () => {},
      () => {},
    )
    let kept = 0
    for (let i = 0; i < 200_000; i++) {
      json.push(byte)
      kept = Math.max(kept, json.held)
    }
    assert.ok(kept <= MAX_ANSWER_BYTES, `${kept} kept`)
    assert.ok(kept >= 200_000 * 2, 'each chunk costs more than its byte')
  })

  it('still reads a state sent a byte at a time', () => {
    const stream = `data: ${PROGRESS}\n\ndata: ${INPUT_REQUIRED}\n\n`
    assert.deepEqual(read('sse', pieces(stream, 1)).states, ['state-of-a'])
    assert.deepEqual(read('json', pieces(INPUT_REQUIRED, 1)).states, ['state-of-a'])
  })
})
