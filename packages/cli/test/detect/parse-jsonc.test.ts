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
  it('keeps line breaks of blanked comments, \r\n included, for the error position', () => {
    assert.throws(
      () => parseJsonc('{\r\n  /* a\r\n  b */ "a": 1,\r\n  // c\r\n  "b" 2\r\n}'),
      (e: unknown) => e instanceof SyntaxError && /line 5 column 7/.test(e.message),
    )
  })
  it('reads a large file with a comment and a trailing comma in every entry', () => {
    const entries = Array.from(
      { length: 20_000 },
      (_, i) => `  // server ${i}\n  "s${i}": {"url": "http://h/${i}", "args": ["a", ],},`,
    )
    const text = `{\n${entries.join('\n')}\n}`
    const parsed = parseJsonc(text) as Record<string, { url: string; args: string[] }>
    assert.equal(Object.keys(parsed).length, 20_000)
    assert.deepEqual(parsed.s19999, { url: 'http://h/19999', args: ['a'] })
  })
})
