import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ByteBlocks, KEPT_PIECE_BYTES } from '../src/byte-blocks.js'

describe('ByteBlocks', () => {
  it('copies small pieces together, out of the buffer they came in', () => {
    const blocks = new ByteBlocks()
    const read = Buffer.alloc(65536, 0x61)
    for (let i = 0; i < 100_000; i++) blocks.push(read.subarray(i % 1000, (i % 1000) + 1))
    assert.equal(blocks.length, 100_000)
    assert.ok(blocks.chunks.length <= 12, `${blocks.chunks.length} pieces for 100,000 bytes`)
    for (const chunk of blocks.chunks) assert.notEqual(chunk.buffer, read.buffer)
    assert.deepEqual(Buffer.from(blocks.bytes()), Buffer.alloc(100_000, 0x61))
  })

  it('keeps order across small and large pieces, and a small answer in a small block', () => {
    const blocks = new ByteBlocks()
    blocks.push(Buffer.from('{"a":'))
    assert.ok(blocks.chunks[0]!.buffer.byteLength <= 256)
    const large = Buffer.alloc(KEPT_PIECE_BYTES, 0x62)
    blocks.push(large)
    blocks.push(Buffer.from('}'))
    assert.equal(blocks.chunks[1], large, 'a large piece is kept as it came')
    const all = Buffer.from(blocks.bytes()).toString()
    assert.equal(all, `{"a":${'b'.repeat(KEPT_PIECE_BYTES)}}`)
    blocks.clear()
    assert.equal(blocks.length, 0)
    assert.equal(blocks.bytes().length, 0)
  })
})
