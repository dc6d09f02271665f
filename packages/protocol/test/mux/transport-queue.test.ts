// What waits in a mux's transport: bytes of frames with a body against the high-water mark (room
// is announced at a quarter of it), bodiless frames bounded, and DATA in pooled buffers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeFrame } from '../../src/index.js'
import {
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
})
