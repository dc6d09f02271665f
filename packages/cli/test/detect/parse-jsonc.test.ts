// JSONC as VS Code and Cursor write it: comments, trailing commas, and errors with line/column.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseJsonc } from '../../src/detect/parse-jsonc.js'

describe('parseJsonc', () => {
  it('accepts // and /* */ comments and trailing commas', () => {
    const text = `{
      // a line comment
      "a": [1, 2, ], /* a block
      comment */ "b": {"c": "d",},
    }`
    assert.deepEqual(parseJsonc(text), { a: [1, 2], b: { c: 'd' } })
  })
  it('leaves comment markers and commas inside strings alone', () => {
    const text = '{"url": "http://x/*y*/", "s": "a,}", "q": "say \\"//hi\\""}'
    assert.deepEqual(parseJsonc(text), { url: 'http://x/*y*/', s: 'a,}', q: 'say "//hi"' })
  })
  it('reads a byte-order mark and an empty or comment-only file as {}', () => {
    assert.deepEqual(parseJsonc('\uFEFF{"a": 1}'), { a: 1 })
    assert.deepEqual(parseJsonc('  \n'), {})
    assert.deepEqual(parseJsonc('// nothing yet\n'), {})
  })
  it('reports errors at the line and column of the original text', () => {
    assert.throws(
      () => parseJsonc('{\n  // comment\n  "a": 1\n  "b": 2\n}'),
      (e: unknown) => e instanceof SyntaxError && /line 4 column 3/.test(e.message),
    )
  })
})
