// The raw text of one member of a JSON object: the root object or an element of the root array,
// the last of a repeated key, names with escapes, and values that hold strings, brackets and
// members of the same name further in.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { memberSpans, memberText } from '../../src/mcp/json-member-text.js'

describe('memberText', () => {
  it('reads a number as written, in the root object', () => {
    assert.equal(
      memberText('{"jsonrpc":"2.0","id":9007199254740993}', null, 'id'),
      '9007199254740993',
    )
    assert.equal(memberText(' { "id" :\n -1.5e+400 , "x": 1 } ', null, 'id'), '-1.5e+400')
  })

  it('reads the member of one element of a root array', () => {
    const text =
      '[{"id":1,"p":{"id":2}}, "x,]}", [1,[2]], {"a":"}\\"{","id":123456789012345678901}]'
    assert.equal(memberText(text, 0, 'id'), '1')
    assert.equal(memberText(text, 3, 'id'), '123456789012345678901')
    assert.equal(memberText(text, 1, 'id'), null)
    assert.equal(memberText(text, 2, 'id'), null)
    assert.equal(memberText(text, 9, 'id'), null)
  })

  it('skips members of the same name nested deeper, and values holding quotes and brackets', () => {
    const text = '{"params":{"id":5,"s":"\\\\","t":"\\"id\\":7"},"id":"x\\"}"}'
    assert.equal(memberText(text, null, 'id'), '"x\\"}"')
  })

  it('keeps the last of a repeated key, and decodes escaped names', () => {
    assert.equal(memberText('{"id":1,"\\u0069d":22}', null, 'id'), '22')
    assert.equal(memberText('{"id":1,"id":true}', null, 'id'), 'true')
  })

  it('answers null for what holds no such member', () => {
    assert.equal(memberText('{}', null, 'id'), null)
    assert.equal(memberText('[]', 0, 'id'), null)
    assert.equal(memberText('{"ids":1}', null, 'id'), null)
    assert.equal(memberText('"id"', null, 'id'), null)
    assert.equal(memberText('[{"id":1}]', null, 'id'), null)
    assert.equal(memberText('{"id":1}', 0, 'id'), null)
  })

  it('reads a deep body without recursion', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000)
    assert.equal(memberText(`{"a":${deep},"id":3}`, null, 'id'), '3')
  })
})

describe('memberSpans', () => {
  const values = (text: string, key = 'id'): string[][] | null =>
    memberSpans(text, key)?.map((spans) => spans.map(([s, e]) => text.slice(s, e))) ?? null

  it('finds every value of the key in the root object, repeated and escaped names too', () => {
    assert.deepEqual(values(' { "id" :\n 12345678901234567890 , "x": {"id": 2} } '), [
      ['12345678901234567890'],
    ])
    assert.deepEqual(values('{"id":1,"\\u0069d":"two"}'), [['1', '"two"']])
    assert.deepEqual(values('{}'), [[]])
  })

  it('finds them per element of a root array, none for an element that is not an object', () => {
    const text = '[{"id":1,"p":{"id":2}}, "x,]}", [1,[2]], {"a":"}\\"{","id":{"id":3}}]'
    assert.deepEqual(values(text), [['1'], [], [], ['{"id":3}']])
    assert.deepEqual(values('[]'), [])
  })

  it('answers null for text that is no object or array', () => {
    assert.equal(memberSpans('42', 'id'), null)
    assert.equal(memberSpans('"x"', 'id'), null)
    assert.equal(memberSpans('{"id":1', 'id'), null)
  })
})
