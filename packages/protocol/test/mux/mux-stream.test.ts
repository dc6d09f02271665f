// What a stream's sending half holds while its bytes wait for credit: few pieces, not one per write.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { KEPT_PIECE_BYTES } from '../../src/byte-blocks.js'
import { MuxStream, STREAM_QUEUE_HIGH } from '../../src/mux/mux-stream.js'
import { idleHost as host } from './idle-host.js'

/** Everything `stream` may send, taken `step` bytes at a time, in one buffer. */
function drain(stream: MuxStream, step: number): Buffer {
  const out: Uint8Array[] = []
  while (stream.queuedBytes > 0) out.push(...stream.take(step))
  return Buffer.concat(out)
}

describe('MuxStream send queue', () => {
  it('holds bytes written one at a time in few pieces, copied out of the reads they came in', () => {
    const stream = new MuxStream(1, host)
    // One byte per DATA frame a tunnel client sent, each a view of the socket read it came in.
    const read = Buffer.alloc(65536)
    for (let i = 0; i < read.length; i++) read[i] = i % 251
    const bytes = 200_000
    let full = false
    for (let i = 0; i < bytes; i++) full = !stream.write(read.subarray(i % 65536, (i % 65536) + 1))
    assert.equal(stream.queuedBytes, bytes)
    assert.equal(full, bytes >= STREAM_QUEUE_HIGH, 'the queue still counts bytes')
    // What waits, in the pieces it is held in (taken whole: a DATA frame's worth and more).
    const pieces = stream.take(bytes)
    assert.ok(pieces.length <= 16, `${pieces.length} pieces for ${bytes} bytes`)
    const views = pieces.filter((p) => p.buffer === read.buffer)
    assert.ok(views.length <= 1, 'only a piece written while nothing waited is kept as it came')
    const expected = Buffer.alloc(bytes)
    for (let i = 0; i < bytes; i++) expected[i] = (i % 65536) % 251
    assert.deepEqual(Buffer.concat(pieces), expected)
    assert.equal(stream.queuedBytes, 0)
  })

  it('sends a large piece as it came, and a piece written while nothing waits', () => {
    const stream = new MuxStream(1, host)
    const small = Buffer.from('{"a":')
    stream.write(small)
    const large = Buffer.alloc(KEPT_PIECE_BYTES, 0x62)
    stream.write(large)
    stream.write(Buffer.from('1'))
    stream.write(Buffer.from('}'))
    const parts = stream.take(1 << 20)
    assert.equal(parts[0], small, 'nothing waited: kept as it came')
    assert.equal(parts[1], large, 'a large piece is not copied')
    assert.equal(Buffer.concat(parts).toString(), `{"a":${'b'.repeat(KEPT_PIECE_BYTES)}1}`)
    assert.equal(stream.queuedBytes, 0)
    assert.equal(stream.sendWindow, STREAM_QUEUE_HIGH - KEPT_PIECE_BYTES - 7)
  })

  it('keeps bytes already taken intact while more are written after them', () => {
    const stream = new MuxStream(1, host)
    stream.write(Buffer.from('x'))
    for (const c of 'abcdef') stream.write(Buffer.from(c))
    const first = Buffer.concat(stream.take(4))
    const taken = stream.take(2)
    for (const c of 'ghij') stream.write(Buffer.from(c))
    assert.equal(first.toString(), 'xabc')
    assert.equal(Buffer.concat(taken).toString(), 'de')
    assert.equal(drain(stream, 3).toString(), 'fghij')
  })
})
