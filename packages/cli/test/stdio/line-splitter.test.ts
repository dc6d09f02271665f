/**
 * Line splitting of a child's output: chunk boundaries, CRLF, split UTF-8 characters, and the
 * bound on a single line.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LineSplitter } from '../../src/stdio/line-splitter.js'

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
      'dropped 17',
      'line next',
    ])
  })

  it('flushes a last line without newline on end()', () => {
    const { lines, s } = splitter()
    s.push(Buffer.from('tail'))
    s.end()
    assert.deepEqual(lines, ['tail'])
  })
})
