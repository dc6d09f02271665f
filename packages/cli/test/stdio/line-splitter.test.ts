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

  it('flushes a last line without newline on end()', () => {
    const { lines, s } = splitter()
    s.push(Buffer.from('tail'))
    s.end()
    assert.deepEqual(lines, ['tail'])
  })
})
