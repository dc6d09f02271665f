/**
 * Line splitting of a child's output: chunk boundaries, CRLF, split UTF-8 characters, and the
 * bound on a single line (a `\r` before the newline not counted against it).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { LineSplitter } from '../../src/stdio/line-splitter.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function splitter(max = 1024): { lines: string[]; dropped: number[]; s: LineSplitter } {
  const lines: string[] = []
  const dropped: number[] = []
  const s = new LineSplitter(
    max,
    (l) => lines.push(l),
    (n) => dropped.push(n),
  )
  return { lines, dropped, s }
}

describe('LineSplitter', () => {
  it('joins chunks into lines and strips \\r', () => {
    const { lines, s } = splitter()
    s.push(Buffer.from('{"a":'))
    s.push(Buffer.from('1}\r\n{"b":2}\n{"c"'))
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}'])
    s.push(Buffer.from(':3}\n'))
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}'])
  })

  it('decodes a UTF-8 character split across chunks', () => {
    const { lines, s } = splitter()
    const bytes = Buffer.from('é€\n')
    s.push(bytes.subarray(0, 1))
    s.push(bytes.subarray(1, 3))
    s.push(bytes.subarray(3))
    assert.deepEqual(lines, ['é€'])
  })

  it('drops an oversized line whole and carries on', () => {
    const { lines, dropped, s } = splitter(10)
    s.push(Buffer.from('short\n0123456789abc'))
    s.push(Buffer.from('def\nnext\n'))
    assert.deepEqual(lines, ['short', 'next'])
    assert.deepEqual(dropped, [16])
  })

  it('keeps the first and last bytes of a dropped line', () => {
    const ends: { head: string; tail: string }[] = []
    const s = new LineSplitter(
      2_000,
      () => {},
      (_, e) => ends.push({ head: e.head.toString(), tail: e.tail.toString() }),
    )
    s.push(Buffer.from(`<${'a'.repeat(1_500)}`))
    for (let i = 0; i < 10; i++) s.push(Buffer.from('b'.repeat(300)))
    s.push(Buffer.from(`${'c'.repeat(1_100)}>\nnext\n`))
    assert.equal(ends.length, 1)
    assert.equal(ends[0]!.head, `<${'a'.repeat(1_023)}`)
    assert.equal(ends[0]!.tail, `${'c'.repeat(1_023)}>`)
  })

  it('hands every byte of a dropped line to onSkippedBytes, before it tells the drop', () => {
    const events: string[] = []
    const s = new LineSplitter(
      10,
      (l) => events.push(`line ${l}`),
      (n) => events.push(`dropped ${n}`),
      (part) => events.push(`bytes ${part.toString()}`),
    )
    s.push(Buffer.from('ok\n0123'))
    s.push(Buffer.from('456789'))
    s.push(Buffer.from('abc'))
    s.push(Buffer.from('def\r\nnext\n'))
    assert.deepEqual(events, [
      'line ok',
      'bytes 0123456789abc',
      'bytes def\r',
      'dropped 16',
      'line next',
    ])
  })

  it('does not count a \\r before the newline against the bound, across chunks too', () => {
    const { lines, dropped, s } = splitter(4)
    s.push(Buffer.from('abcd\r\nefgh\r'))
    s.push(Buffer.from('\nijkl\r'))
    s.push(Buffer.from(''))
    s.push(Buffer.from('\n'))
    assert.deepEqual(lines, ['abcd', 'efgh', 'ijkl'])
    s.push(Buffer.from('abcde\r\n'))
    assert.deepEqual(dropped, [5])
  })

  it('drops a line whose \\r past the bound is followed by more than its newline', () => {
    const skipped: string[] = []
    const dropped: number[] = []
    const lines: string[] = []
    const s = new LineSplitter(
      4,
      (l) => lines.push(l),
      (n) => dropped.push(n),
      (part) => skipped.push(part.toString()),
    )
    s.push(Buffer.from('abcd\r'))
    s.push(Buffer.from('x\n'))
    s.push(Buffer.from('abcd\r\r\nok\n'))
    assert.deepEqual(skipped, ['abcd\rx', 'abcd\r\r'])
    assert.deepEqual(dropped, [6, 5])
    assert.deepEqual(lines, ['ok'])
  })

  it('reads a line of the bound ending in \\r at the end of the stream without it', () => {
    const { lines, dropped, s } = splitter(4)
    s.push(Buffer.from('abcd\r'))
    s.end()
    assert.deepEqual(lines, ['abcd'])
    assert.deepEqual(dropped, [])
  })

  it('bounds bytes, not characters, when a character straddles chunks at the bound', () => {
    const { lines, dropped, s } = splitter(6)
    const line = Buffer.from('ab€é') // 2 + 3 + 2 bytes: one over
    s.push(line.subarray(0, 4))
    s.push(line.subarray(4))
    s.push(Buffer.from('\r\n'))
    assert.deepEqual(dropped, [7])
    const fits = Buffer.from('a€é') // 6 bytes
    s.push(fits.subarray(0, 2))
    s.push(Buffer.concat([fits.subarray(2), Buffer.from('\r')]))
    s.push(Buffer.from('\n'))
    assert.deepEqual(lines, ['a€é'])
  })

  it('holds about the bytes of a line that comes a byte at a time', () => {
    // Found by hostile review: each chunk of an unfinished line was kept as it came, and a child
    // writing a byte per write reaches the pipe's reader in chunks of a few bytes, each its own
    // allocation (3 MB read so held 280 MB): a line under the 10 MiB bound held about 1 GB.
    const size = 512 * 1024
    const { lines, s } = splitter(size)
    gc()
    const before = process.memoryUsage()
    for (let i = 0; i < size; i++) s.push(Buffer.allocUnsafeSlow(1).fill('a'))
    gc()
    const after = process.memoryUsage()
    const held = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)
    // Kept chunk by chunk this was some 100 MB.
    assert.ok(held < 8 * size, `held ${held} bytes for a line of ${size}`)
    s.push(Buffer.from('\n'))
    assert.deepEqual(lines, ['a'.repeat(size)])
  })

  it('flushes a last line without newline on end()', () => {
    const { lines, s } = splitter()
    s.push(Buffer.from('tail'))
    s.end()
    assert.deepEqual(lines, ['tail'])
  })
})
