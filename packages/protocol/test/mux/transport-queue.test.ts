// What waits in a mux's transport: bytes of frames with a body against the high-water mark (room
// is announced at a quarter of it), bodiless frames bounded, DATA in pooled buffers, and small
// pieces of DATA gathered while the transport is backed up past the mux's gather mark.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeFrame, TunnelMux, type MuxStream } from '../../src/index.js'
import { encodeData } from '../../src/frame-codec.js'
import {
  GATHERED_DATA_BYTES,
  MAX_QUEUED_CONTROL_FRAMES,
  TransportQueue,
  type MuxTransport,
} from '../../src/mux/transport-queue.js'
import type { ProtocolError } from '../../src/protocol-error.js'

/** A transport that holds every frame until `flush`. */
function holdingTransport() {
  const held: { bytes: Uint8Array; done?: (err?: Error) => void }[] = []
  const transport: MuxTransport = { send: (bytes, done) => held.push({ bytes, done }) }
  const flush = (n = held.length) => {
    for (const f of held.splice(0, n)) f.done?.()
  }
  return { held, transport, flush }
}

describe('TransportQueue', () => {
  it('counts body bytes in flight and says when a quarter of the mark is left', () => {
    const { held, transport, flush } = holdingTransport()
    let rooms = 0
    const queue = new TransportQueue({
      transport,
      highWater: 4000,
      reuseBuffers: false,
      onRoom: () => rooms++,
      onFlood: () => assert.fail('no flood'),
    })
    for (let i = 0; i < 4; i++) queue.send(new Uint8Array(1000), 990)
    assert.equal(queue.bufferedBytes, 4000)
    assert.equal(queue.full, true)
    flush(2)
    assert.equal(queue.full, false)
    assert.equal(rooms, 0, 'still 2,000 bytes in flight')
    flush(1)
    assert.equal(rooms, 1)
    assert.equal(held.length, 1)
  })

  it('cuts off a peer that leaves too many bodiless frames unread', () => {
    const { held, transport, flush } = holdingTransport()
    const floods: ProtocolError[] = []
    const queue = new TransportQueue({
      transport,
      highWater: 1 << 20,
      reuseBuffers: false,
      onRoom: () => {},
      onFlood: (err) => floods.push(err),
    })
    for (let i = 0; i < MAX_QUEUED_CONTROL_FRAMES; i++) queue.send(new Uint8Array(8), 0)
    assert.equal(floods.length, 0)
    queue.send(new Uint8Array(8), 0)
    assert.equal(floods.length, 1)
    assert.equal(floods[0]!.code, 'flood')
    assert.equal(held.length, MAX_QUEUED_CONTROL_FRAMES)
    flush(1)
    queue.send(new Uint8Array(8), 0)
    assert.equal(floods.length, 1, 'a written frame makes room for one more')
    assert.equal(queue.bufferedBytes, 0, 'bodiless frames are not body bytes')
  })

  it('encodes DATA, in pooled buffers when asked', () => {
    for (const reuseBuffers of [false, true]) {
      const { held, transport, flush } = holdingTransport()
      const queue = new TransportQueue({
        transport,
        highWater: 1 << 20,
        reuseBuffers,
        onRoom: () => {},
        onFlood: () => assert.fail('no flood'),
      })
      queue.sendData(3, [Buffer.from('ab'), Buffer.from('cd')], 4, true)
      const frame = decodeFrame(held[0]!.bytes)
      assert.ok(frame.type === 'data')
      assert.equal(frame.streamId, 3)
      assert.equal(Buffer.from(frame.chunk).toString(), 'abcd')
      assert.equal(frame.fin, true)
      assert.equal(queue.bufferedBytes, held[0]!.bytes.length)
      flush()
      assert.equal(queue.bufferedBytes, 0)
    }
  })

  it('gathers small pieces of DATA while the transport is backed up, a frame each before', async () => {
    const PIECES = 40_000
    const GATHER = 16 * 1024
    const { held, transport, flush } = holdingTransport()
    let served: MuxStream | null = null
    const server = new TunnelMux({
      role: 'client',
      transport,
      gatherAboveBytes: GATHER,
      onOpen: (stream) => (served = stream),
    })
    const opener = new TunnelMux({
      role: 'broker',
      transport: { send: (bytes, done) => (server.receive(bytes), done?.()) },
    })
    opener.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    assert.ok(served)
    const stream: MuxStream = served
    stream.respond({ status: 200, headers: [] })
    // One byte a turn, as a peer relaying one byte per frame; nothing handed over is written.
    for (let i = 0; i < PIECES; i++) {
      stream.write(Uint8Array.of(i % 251))
      await new Promise((r) => setImmediate(r))
    }
    stream.end()
    await new Promise((r) => setImmediate(r))
    const heldWhileBackedUp = held.length
    // Frames of one byte until the mark, then frames of a gathered block each.
    const tiny = encodeData(1, [Uint8Array.of(0)], false).length
    const bound = 2 + Math.ceil(GATHER / tiny) + Math.ceil(PIECES / GATHERED_DATA_BYTES)
    assert.ok(
      heldWhileBackedUp <= bound,
      `${heldWhileBackedUp} frames waiting, not ${bound} at most`,
    )
    // Written out, the rest follows: every byte, in order, and the end.
    const written: Uint8Array[] = []
    while (held.length > 0) {
      for (const { bytes } of held) written.push(bytes)
      flush()
      await new Promise((r) => setImmediate(r))
    }
    const data: number[] = []
    let fin = false
    for (const bytes of written) {
      const frame = decodeFrame(bytes)
      if (frame.type !== 'data') continue
      data.push(...frame.chunk)
      fin ||= frame.fin
    }
    assert.ok(fin)
    assert.equal(data.length, PIECES)
    assert.ok(data.every((b, i) => b === i % 251))
  })
})

describe('TransportQueue gathering (found by a hostile review)', () => {
  it('holds nothing for a mux that set no gather mark, however backed up', () => {
    const { transport } = holdingTransport()
    const queue = new TransportQueue({
      transport,
      highWater: 4000,
      reuseBuffers: false,
      onRoom: () => {},
      onFlood: () => assert.fail('no flood'),
    })
    queue.sendData(1, [new Uint8Array(3000)], 3000, false)
    assert.equal(queue.holds(1, 10, 10), false)
  })

  it("does not keep a small answer waiting while another stream's keeps the link busy", async () => {
    const { held, transport, flush } = holdingTransport()
    const served: MuxStream[] = []
    const server = new TunnelMux({
      role: 'client',
      transport,
      gatherAboveBytes: 16 * 1024,
      onOpen: (stream) => served.push(stream),
    })
    const opener = new TunnelMux({
      role: 'broker',
      transport: { send: (bytes, done) => (server.receive(bytes), done?.()) },
    })
    const small = opener.open({ method: 'GET', path: '/small', headers: [] }, undefined, true)
    let smallData = 0
    small.read((chunk) => {
      smallData += chunk.length
    })
    const big = opener.open({ method: 'GET', path: '/big', headers: [] }, undefined, true)
    let bigData = 0
    big.read((chunk) => {
      bigData += chunk.length
    })
    const [smallServed, bigServed] = served as [MuxStream, MuxStream]
    bigServed.respond({ status: 200, headers: [] })
    smallServed.respond({ status: 200, headers: [] })
    // The big answer writes as fast as the link takes it; the small one has 10 bytes to send.
    for (let round = 0; round < 40; round++) {
      bigServed.write(new Uint8Array(64 * 1024))
      if (round === 0) smallServed.write(new Uint8Array(10))
      await new Promise((r) => setImmediate(r))
      // The link writes all but the last 32 KiB of what waits, and the peer reads it.
      let waiting = held.reduce((sum, f) => sum + f.bytes.length, 0)
      let n = 0
      while (n < held.length && waiting - held[n]!.bytes.length >= 32 * 1024)
        waiting -= held[n++]!.bytes.length
      const written = held.slice(0, n).map((f) => f.bytes)
      flush(n)
      for (const bytes of written) opener.receive(bytes)
    }
    assert.ok(bigData > 1024 * 1024, `the big answer flowed (${bigData} bytes)`)
    assert.equal(smallData, 10, 'the small answer left while the big one kept flowing')
  })
})
