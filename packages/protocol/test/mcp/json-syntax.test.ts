// The grammar check run before JSON.parse on short text: it must agree with JSON.parse on every
// text, valid or broken, and say where broken text breaks.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { jsonSyntaxError } from '../../src/mcp/json-syntax.js'

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Characters JSON's grammar turns on, and a few it does not know. */
const PIECES = [
  ...'{}[]",:\\/ \t\n\r-+.eE0123456789truefalsnbux',
  'ab',
  '\u0000',
  '\u2028',
  '\uD800',
]

/** JSON's tokens, for texts put together from them in any order. */
const TOKENS = ['{', '}', '[', ']', ',', ':', '1', '-2.5e3', '"a"', 'true', 'null', ' ']

describe('jsonSyntaxError', () => {
  it('accepts every JSON text, whatever its values', () => {
    fc.assert(
      fc.property(fc.json(), (text) => assert.equal(jsonSyntaxError(text), -1, text)),
      { numRuns: 2_000 },
    )
    for (const text of ['0', '-0.5e+7', '1E9', '"\\u00aF\\n\\/"', ' [ ] ', '{"a":[{},[],null]}']) {
      assert.equal(jsonSyntaxError(text), -1, text)
    }
  })

  it('agrees with JSON.parse on texts broken at random', () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom(...PIECES),
        fc.constantFrom('insert', 'delete', 'replace'),
      )
      .map(([text, at, piece, how]) => {
        const i = at % (text.length + 1)
        if (how === 'insert') return text.slice(0, i) + piece + text.slice(i)
        if (how === 'delete') return text.slice(0, i) + text.slice(i + 1)
        return text.slice(0, i) + piece + text.slice(i + 1)
      })
    const soup = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((p) => p.join(''))
    const tokens = fc.array(fc.constantFrom(...TOKENS), { maxLength: 10 }).map((p) => p.join(''))
    fc.assert(
      fc.property(fc.oneof(mutated, soup, tokens), (text) => {
        assert.equal(jsonSyntaxError(text) === -1, parses(text), JSON.stringify(text))
      }),
      { numRuns: 20_000 },
    )
  })

  it('says where the text breaks', () => {
    assert.equal(jsonSyntaxError(''), 0)
    assert.equal(jsonSyntaxError('{'), 1)
    assert.equal(jsonSyntaxError('{"a":1,}'), 7)
    assert.equal(jsonSyntaxError('[1,]'), 3)
    assert.equal(jsonSyntaxError('[1 2]'), 3)
    assert.equal(jsonSyntaxError('01'), 1)
    assert.equal(jsonSyntaxError('"\\x"'), 2)
    assert.equal(jsonSyntaxError('"\\u12g4"'), 5)
    assert.equal(jsonSyntaxError('"a\u0001"'), 2)
    assert.equal(jsonSyntaxError('{} x'), 3)
    assert.equal(jsonSyntaxError('tru'), 0)
  })

  it('reads nesting as deep as the text is long without overflowing the stack', () => {
    // A check that recursed threw RangeError on 4,096 open brackets, where JSON.parse (iterative)
    // reads such text and refuses it (found by a review).
    for (const depth of [512, 2_048, 100_000]) {
      assert.equal(jsonSyntaxError('['.repeat(depth) + ']'.repeat(depth)), -1)
      assert.equal(jsonSyntaxError('['.repeat(depth) + ']'.repeat(depth - 1)), 2 * depth - 1)
      assert.equal(jsonSyntaxError('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)), -1)
      assert.equal(jsonSyntaxError('['.repeat(depth)), depth)
      assert.equal(jsonSyntaxError('{"a":['.repeat(depth)), 6 * depth)
    }
  })
})
