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

describe('ByteBlocks as a queue', () => {
  it('gives bytes back from the front, in order, across blocks and kept pieces', () => {
    const blocks = new ByteBlocks()
    const large = Buffer.alloc(KEPT_PIECE_BYTES, 0x62)
    const expected: Buffer[] = []
    for (let i = 0; i < 3000; i++) {
      const piece = Buffer.from([0x61 + (i % 26)])
      blocks.push(piece)
      expected.push(piece)
      if (i === 1000) {
        blocks.push(large)
        expected.push(large)
      }
    }
    const out: Uint8Array[] = []
    let sizes = 0
    while (blocks.length > 0) {
      const parts = blocks.take(777)
      sizes += parts.reduce((n, p) => n + p.length, 0)
      out.push(...parts)
    }
    assert.equal(sizes, 3000 + KEPT_PIECE_BYTES)
    assert.deepEqual(Buffer.concat(out), Buffer.concat(expected))
    assert.equal(blocks.chunks.length, 0)
  })

  it('never writes again into bytes taken from the block being filled', () => {
    const blocks = new ByteBlocks()
    blocks.push(Buffer.from('abc'))
    const first = blocks.take(2)
    blocks.push(Buffer.from('def'))
    const second = blocks.take(3)
    blocks.push(Buffer.from('ghi'))
    assert.equal(Buffer.concat(first).toString(), 'ab')
    assert.equal(Buffer.concat(second).toString(), 'cde')
    assert.deepEqual(blocks.take(0), [])
    assert.deepEqual(blocks.take(-1), [])
    assert.equal(blocks.length, 4)
    assert.equal(Buffer.concat(blocks.take(10)).toString(), 'fghi')
    assert.equal(blocks.length, 0)
  })

  it('keeps a piece as it came when told to', () => {
    const blocks = new ByteBlocks()
    const small = Buffer.from('x')
    blocks.keep(small)
    blocks.push(Buffer.from('y'))
    assert.equal(blocks.chunks[0], small)
    assert.equal(Buffer.from(blocks.bytes()).toString(), 'xy')
  })
})
