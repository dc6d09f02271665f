// JSON as lenient readers take it: NaN and the infinities outside strings, nothing else.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseLenientJson } from '../../src/mcp/lenient-json.js'

describe('parseLenientJson', () => {
  it('reads NaN, Infinity and -Infinity outside strings, as null', () => {
    assert.deepEqual(parseLenientJson('{"a":NaN,"b":[Infinity,-Infinity]}'), {
      a: null,
      b: [null, null],
    })
    // Inside strings they stay text, escaped quotes and backslashes included.
    assert.deepEqual(parseLenientJson('{"s":"NaN \\" Infinity \\\\","n":NaN}'), {
      s: 'NaN " Infinity \\',
      n: null,
    })
  })

  it('reads nothing JSON.parse read, and nothing else that is not JSON', () => {
    assert.equal(parseLenientJson('{"a":1}'), undefined)
    for (const text of ['{"a":NaNa}', '{"a":nan}', '{"a":NaN', '{"a":NaN}x', '"NaN', 'NaN,']) {
      assert.equal(parseLenientJson(text), undefined, text)
    }
  })

  it('stays linear in a long text', () => {
    const text = `[${'NaN,'.repeat(200_000)}1]`
    const value = parseLenientJson(text) as unknown[]
    assert.equal(value.length, 200_001)
  })
})
