// Numeric ids beyond 2^53 − 1: which are too large, and JSON written with the digits an agent
// sent, whatever else the value holds.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isLargeNumberId,
  LargeNumberId,
  MAX_EXACT_ID,
  stringifyWithLargeIds,
} from '../../src/index.js'

describe('isLargeNumberId', () => {
  it('is true beyond ±(2^53 − 1) only', () => {
    assert.equal(isLargeNumberId(MAX_EXACT_ID), false)
    assert.equal(isLargeNumberId(-MAX_EXACT_ID), false)
    assert.equal(isLargeNumberId(1.5), false)
    assert.equal(isLargeNumberId(MAX_EXACT_ID + 1), true)
    assert.equal(isLargeNumberId(-(MAX_EXACT_ID + 1)), true)
    assert.equal(isLargeNumberId(Infinity), true)
    assert.equal(isLargeNumberId('9007199254740993'), false)
  })
})

describe('stringifyWithLargeIds', () => {
  it('writes each LargeNumberId as its digits', () => {
    const ids = [new LargeNumberId('9007199254740993', 0), new LargeNumberId('-1e400', 0)]
    const json = stringifyWithLargeIds(ids.map((id) => ({ jsonrpc: '2.0', id })))
    assert.equal(json, '[{"jsonrpc":"2.0","id":9007199254740993},{"jsonrpc":"2.0","id":-1e400}]')
  })

  it('leaves strings that look like its placeholders alone', () => {
    const value = { id: new LargeNumberId('12345678901234567890', 0), reason: '\u0000x:0 "\u0000' }
    const json = stringifyWithLargeIds(value)
    assert.equal(json, `{"id":12345678901234567890,"reason":${JSON.stringify(value.reason)}}`)
    assert.deepEqual(Object.keys(JSON.parse(json) as object), ['id', 'reason'])
  })

  it('writes what holds none as JSON.stringify does', () => {
    const value = { a: [1, 'b', null], c: { d: true } }
    assert.equal(stringifyWithLargeIds(value), JSON.stringify(value))
  })
})

describe('LargeNumberId', () => {
  it('keeps only a JSON number as its text, and is a string to other serializers', () => {
    assert.equal(new LargeNumberId('1e30', 1e30).text, '1e30')
    assert.equal(new LargeNumberId('1}]', 1e30).text, '1e+30')
    assert.equal(new LargeNumberId(null, 9007199254740992).text, '9007199254740992')
    assert.equal(
      JSON.stringify({ id: new LargeNumberId('9007199254740993', 0) }),
      '{"id":"9007199254740993"}',
    )
  })
})
