/**
 * What the inspector keeps of a body: its first bytes up to the bound, however it was cut into
 * chunks, copied (the writer may reuse its buffer), and counted as the memory it holds.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { BodyCapture, captureBody } from '../../src/inspector/captured-body.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const encode = (text: string): Uint8Array => new TextEncoder().encode(text)

describe('BodyCapture', () => {
  it('keeps the first bytes up to the bound, copied, and counts the rest', () => {
    const c = new BodyCapture(10)
    const reused = encode('hello ')
    c.add(reused)
    reused.fill(0x21)
    c.add(encode('world, and more'))
    assert.deepEqual(c.snapshot(), { text: 'hello worl', bytes: 21, truncated: true })
    assert.ok(c.keptBytes >= 10 && c.keptBytes <= 1024, `counted ${c.keptBytes}`)
  })

  it('drops a character the bound cuts in two, and keeps a whole body whole', () => {
    assert.deepEqual(captureBody(encode('ab€'), 3), { text: 'ab', bytes: 5, truncated: true })
    assert.deepEqual(captureBody(encode('ab€')), { text: 'ab€', bytes: 5, truncated: false })
    assert.deepEqual(new BodyCapture().snapshot(), { text: '', bytes: 0, truncated: false })
  })

  it('holds about what it counts when the body comes a byte at a time', () => {
    // Found by hostile review: each chunk was kept as an array of its own, some 200 bytes for
    // the 1 counted, so 20 answers of 256 KiB sent a byte at a time held 1.1 GB.
    const size = 64 * 1024
    const one = encode('a')
    gc()
    const before = process.memoryUsage()
    const captures = Array.from({ length: 8 }, () => {
      const c = new BodyCapture(size)
      for (let i = 0; i < size; i++) c.add(one)
      return c
    })
    gc()
    const after = process.memoryUsage()
    const held = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)
    const counted = captures.reduce((sum, c) => sum + c.keptBytes, 0)
    assert.equal(counted, 8 * size)
    assert.equal(captures[7]!.snapshot().text, 'a'.repeat(size))
    // Without coalescing this was some 100 MiB.
    assert.ok(held < 8 * 1024 * 1024, `held ${held} bytes for ${counted} counted`)
  })
})
