// The connection's receive window against a hostile peer: bytes it sends where no stream takes
// them (a closed stream, past a stream's window or end, inline in a late RESPONSE) are credited
// back only once counted, so they never widen the window that bounds what the receiver holds.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  INITIAL_CONNECTION_WINDOW,
  MAX_CHUNK_BYTES,
  RESET_CODE,
  TunnelMux,
  type ProtocolError,
  type RequestHead,
} from '../../src/index.js'

const head: RequestHead = { method: 'GET', path: '/mcp', headers: [] }
const chunk = Buffer.alloc(MAX_CHUNK_BYTES)

/** A broker's mux fed raw frames, as a hostile client sends them. */
function broker() {
  const errors: ProtocolError[] = []
  /** Connection credit the broker granted the peer (WINDOW on stream 0). */
  let granted = 0
  const mux = new TunnelMux({
    role: 'broker',
    transport: {
      send: (bytes, done) => {
        const frame = decodeFrame(bytes)
        if (frame.type === 'window' && frame.streamId === 0) granted += frame.credit
        if (done) queueMicrotask(done)
      },
    },
    onProtocolError: (e) => errors.push(e),
  })
  const data = (streamId: number, fin = false) =>
    mux.receive(encodeFrame({ type: 'data', streamId, chunk, fin }))
  const respond = (streamId: number, body?: Uint8Array, fin = false) =>
    mux.receive(
      encodeFrame({
        type: 'response',
        streamId,
        head: { status: 200, headers: [] },
        ...(body ? { body } : {}),
        fin,
      }),
    )
  return { mux, errors, data, respond, granted: () => granted }
}

/**
 * Streams nobody reads, each filled to its own window: together they pass the connection's window,
 * which must end the connection. True when it did.
 */
function fillsPastConnectionWindow(b: ReturnType<typeof broker>): boolean {
  const streams = Array.from({ length: 70 }, () => b.mux.open(head, undefined, true))
  for (const s of streams) {
    b.respond(s.id)
    for (let i = 0; i < 4; i++) {
      b.data(s.id)
      if (b.errors.length > 0) return true
    }
  }
  return false
}

/** Junk a peer sends: the connection window's worth, four times over. */
const JUNK_FRAMES = (4 * INITIAL_CONNECTION_WINDOW) / MAX_CHUNK_BYTES

it('DATA for a closed stream does not widen the connection window', () => {
  const b = broker()
  const closed = b.mux.open(head, undefined, true)
  closed.reset(RESET_CODE.cancel, 'the agent disconnected')
  for (let i = 0; i < JUNK_FRAMES && b.errors.length === 0; i++) b.data(closed.id)
  assert.equal(b.errors.length, 0, 'late DATA within the window is taken and credited back')
  assert.ok(fillsPastConnectionWindow(b), 'the window still bounds what streams hold')
  assert.equal(b.errors[0]!.code, 'flow_control')
})

it('DATA past a stream window, or after its end, does not widen the connection window', () => {
  for (const fault of ['window', 'end'] as const) {
    const b = broker()
    for (let sent = 0; sent < JUNK_FRAMES && b.errors.length === 0;) {
      const s = b.mux.open(head, undefined, true)
      b.respond(s.id, undefined, fault === 'end')
      if (fault === 'window') {
        // Four frames fill the window of a stream nobody reads; the fifth passes it.
        for (let i = 0; i < 5; i++, sent++) b.data(s.id)
      } else {
        b.data(s.id)
        sent++
      }
    }
    assert.equal(b.errors.length, 0, fault)
    assert.ok(fillsPastConnectionWindow(b), fault)
  }
})

it('a RESPONSE body for a closed stream is not credited: it never counted against the window', () => {
  const b = broker()
  for (let i = 0; i < JUNK_FRAMES; i++) {
    const s = b.mux.open(head, undefined, true)
    s.reset(RESET_CODE.cancel, 'the agent disconnected')
    b.respond(s.id, chunk)
  }
  assert.equal(b.granted(), 0)
  assert.ok(fillsPastConnectionWindow(b))
})

it('late DATA beyond the connection window ends the connection', () => {
  const b = broker()
  const closed = b.mux.open(head, undefined, true)
  closed.reset(RESET_CODE.cancel, 'the agent disconnected')
  // Streams nobody reads hold the whole window: 64 of 256 KiB.
  for (let n = 0; n < INITIAL_CONNECTION_WINDOW / (4 * MAX_CHUNK_BYTES); n++) {
    const s = b.mux.open(head, undefined, true)
    b.respond(s.id)
    for (let i = 0; i < 4; i++) b.data(s.id)
  }
  assert.equal(b.errors.length, 0)
  b.data(closed.id)
  assert.equal(b.errors[0]?.code, 'flow_control')
})
