// What a head may hold to cross the tunnel: the checks the edge and `burrow up` run before they
// send, against what the codec accepts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  MAX_HEADER_PAIRS,
  MAX_META_BYTES,
  MAX_PATH_LENGTH,
  requestHeadProblem,
  responseHeadProblem,
  type RequestHead,
} from '../src/index.js'

const ok: RequestHead = { method: 'POST', path: '/mcp', headers: [['accept', '*/*']] }

describe('requestHeadProblem', () => {
  it('accepts an ordinary head', () => assert.equal(requestHeadProblem(ok), null))

  it('refuses a path over the limit as a path problem (414)', () => {
    assert.equal(requestHeadProblem({ ...ok, path: '/' + 'a'.repeat(MAX_PATH_LENGTH - 1) }), null)
    const p = requestHeadProblem({ ...ok, path: '/' + 'a'.repeat(MAX_PATH_LENGTH) })
    assert.equal(p?.kind, 'path')
    assert.match(p.message, /8193 characters/)
  })

  it('refuses more header pairs than a frame carries (431)', () => {
    const headers = Array.from({ length: MAX_HEADER_PAIRS + 1 }, (_, i) => [`h${i}`, 'v'] as const)
    const p = requestHeadProblem({ ...ok, headers })
    assert.equal(p?.kind, 'headers')
    assert.match(p.message, /257 headers/)
    assert.equal(requestHeadProblem({ ...ok, headers: headers.slice(1) }), null)
  })

  it('measures the encoded size, escapes and multi-byte characters included', () => {
    // 6,000 characters that JSON escapes as \u00XX: 36,000 bytes once encoded.
    const escaped = requestHeadProblem({ ...ok, headers: [['x-a', '\u0001'.repeat(6000)]] })
    assert.equal(escaped?.kind, 'headers')
    assert.match(escaped.message, /bytes once encoded/)
    // 9,000 Latin-1 characters take two bytes each in UTF-8.
    assert.equal(
      requestHeadProblem({ ...ok, headers: [['x-a', 'é'.repeat(9000)]] })?.kind,
      'headers',
    )
    assert.equal(requestHeadProblem({ ...ok, headers: [['x-a', 'é'.repeat(7000)]] }), null)
  })

  it('agrees with the codec at the boundary', () => {
    for (const size of [MAX_META_BYTES - 60, MAX_META_BYTES - 40, MAX_META_BYTES - 20]) {
      const head: RequestHead = { ...ok, headers: [['x-a', 'v'.repeat(size)]] }
      const problem = requestHeadProblem(head)
      if (problem === null) {
        const frame = decodeFrame(encodeFrame({ type: 'open', streamId: 1, head, fin: true }))
        assert.equal(frame.type, 'open')
      } else {
        assert.throws(() => encodeFrame({ type: 'open', streamId: 1, head, fin: true }), RangeError)
      }
    }
  })
})

describe('responseHeadProblem', () => {
  it('accepts an ordinary response and refuses an oversized one', () => {
    assert.equal(
      responseHeadProblem({ status: 200, headers: [['content-type', 'text/plain']] }),
      null,
    )
    const p = responseHeadProblem({ status: 200, headers: [['set-cookie', 'x'.repeat(17_000)]] })
    assert.equal(p?.kind, 'headers')
    assert.match(p.message, /response's headers/)
  })
})
