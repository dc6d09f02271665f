// Property-based tests of what the tunnel makes of untrusted bytes (fast-check, bounded runs):
// the decoder raises nothing but ProtocolError; a stream-level fault resets that stream and never
// the connection; what head-limits accepts is exactly what the codec carries.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  decodeFrame,
  encodeFrame,
  FRAME_TYPE,
  ProtocolError,
  requestHeadProblem,
  TunnelMux,
  type Frame,
  type RequestHead,
} from '../../src/index.js'

const RUNS = { numRuns: 300, seed: 20261125 }

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('x'.repeat(9000), '\u0001'.repeat(3000), 'é'.repeat(8500)),
)
const requestHead: fc.Arbitrary<RequestHead> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  path: fc.oneof(
    fc.string({ maxLength: 60 }).map((s) => '/' + s),
    fc.integer({ min: 8000, max: 8400 }).map((n) => '/' + 'p'.repeat(n)),
  ),
  headers: fc.oneof(
    fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }),
    fc
      .integer({ min: 250, max: 262 })
      .map((n) => Array.from({ length: n }, (_, i) => [`h${i}`, 'v'] as const)),
  ),
})

/** An OPEN frame built by hand, so it may break the limits the encoder keeps to. */
function rawOpen(streamId: number, meta: string, fin: boolean): Buffer {
  const json = Buffer.from(meta)
  const len = Math.min(json.length, 0xffff)
  const frame = Buffer.alloc(8 + len)
  frame[0] = FRAME_TYPE.open
  frame[1] = fin ? 1 : 0
  frame.writeUInt32BE(streamId, 2)
  frame.writeUInt16BE(len, 6)
  json.copy(frame, 8, 0, len)
  return frame.subarray(0, Math.min(frame.length, 6 + 2 + 16 * 1024 + 64 * 1024))
}

const validFrame: fc.Arbitrary<Frame> = fc.oneof(
  requestHead
    .filter((h) => requestHeadProblem(h) === null)
    .map((head) => ({ type: 'open', streamId: 1, head, fin: true }) as const),
  fc
    .uint8Array({ maxLength: 200 })
    .map((chunk) => ({ type: 'data', streamId: 3, chunk, fin: false }) as const),
  fc
    .integer({ min: 1, max: 2 ** 31 - 1 })
    .map((credit) => ({ type: 'window', streamId: 0, credit }) as const),
  fc.nat().map((payload) => ({ type: 'ping', payload }) as const),
)

describe('frame fuzzing', () => {
  it('random bytes raise nothing but ProtocolError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(12), (bytes, type) => {
        if (bytes.length > 0) bytes[0] = type
        try {
          decodeFrame(bytes)
        } catch (err) {
          assert.ok(err instanceof ProtocolError, `raised ${String(err)}`)
        }
      }),
      RUNS,
    )
  })

  it('mutated valid frames raise nothing but ProtocolError', () => {
    fc.assert(
      fc.property(
        validFrame,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (frame, flips) => {
          const bytes = Buffer.from(encodeFrame(frame))
          for (const [at, value] of flips) bytes[at % bytes.length] = value
          try {
            decodeFrame(bytes)
          } catch (err) {
            assert.ok(err instanceof ProtocolError, `raised ${String(err)}`)
          }
        },
      ),
      RUNS,
    )
  })

  it('head-limits accepts exactly the heads the codec carries', () => {
    fc.assert(
      fc.property(requestHead, (head) => {
        const problem = requestHeadProblem(head)
        let carried = false
        try {
          const frame = decodeFrame(encodeFrame({ type: 'open', streamId: 1, head, fin: true }))
          carried = frame.type === 'open' && frame.head.path === head.path
        } catch (err) {
          assert.ok(err instanceof RangeError || err instanceof ProtocolError, String(err))
        }
        assert.equal(carried, problem === null, problem?.message ?? 'accepted but not carried')
      }),
      RUNS,
    )
  })

  it('OPEN frames with any head never close the connection: each is served or reset', () => {
    const garbageMeta = fc.oneof(
      requestHead.map((h) => JSON.stringify({ m: h.method, p: h.path, h: h.headers })),
      fc.string({ maxLength: 100 }),
      fc.json({ maxDepth: 4 }),
      fc.constantFrom(
        '{"m":"POST","p":"/mcp","h":[["a"]]}',
        '{"m":"post","p":"mcp","h":[]}',
        '[]',
        'null',
      ),
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(garbageMeta, fc.boolean()), { minLength: 1, maxLength: 12 }),
        (opens) => {
          let fatal: ProtocolError | null = null
          let served = 0
          let reset = 0
          const client = new TunnelMux({
            role: 'client',
            transport: {
              send: (bytes, done) => {
                if (bytes[0] === FRAME_TYPE.rst) reset++
                done?.()
              },
            },
            onOpen: (stream) => {
              served++
              stream.respond({ status: 204, headers: [] }, undefined, true)
            },
            onStreamError: () => {},
            onProtocolError: (e) => (fatal = e),
          })
          opens.forEach(([meta, fin], i) => client.receive(rawOpen(2 * i + 1, meta, fin)))
          assert.equal(
            fatal,
            null,
            `the connection closed: ${(fatal as ProtocolError | null)?.message}`,
          )
          assert.equal(served + reset, opens.length)
        },
      ),
      RUNS,
    )
  })

  for (const role of ['client', 'broker'] as const) {
    it(`a ${role} mux fed random frame sequences throws nothing but reports ProtocolError`, () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              validFrame.map((f) => Buffer.from(encodeFrame(f))),
              fc.uint8Array({ maxLength: 80 }),
            ),
            {
              maxLength: 20,
            },
          ),
          (messages) => {
            const mux = new TunnelMux({
              role,
              transport: { send: (_b, done) => done?.() },
              onOpen: (stream) => stream.respond({ status: 200, headers: [] }, undefined, true),
            })
            // The broker's side has streams of its own open, as public requests would.
            if (role === 'broker') {
              for (let i = 0; i < 3; i++) {
                mux.open({ method: 'POST', path: '/mcp', headers: [] }, undefined, false)
              }
            }
            for (const m of messages) mux.receive(m)
          },
        ),
        RUNS,
      )
    })
  }
})
