/** `<upstream>__<item>` names, split at the longest matching upstream name. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ambiguousUpstreamNames,
  prefixName,
  splitPrefixedName,
} from '../../src/aggregator/prefixed-name.js'

describe('prefixed names', () => {
  it('join and split', () => {
    assert.equal(prefixName('files', 'read__all'), 'files__read__all')
    assert.deepEqual(splitPrefixedName('files__read__all', ['files', 'db']), {
      upstream: 'files',
      item: 'read__all',
    })
  })

  it('prefer the longest upstream name, since names may contain "__"', () => {
    assert.deepEqual(splitPrefixedName('my__db__query', ['my', 'my__db']), {
      upstream: 'my__db',
      item: 'query',
    })
  })

  it('find nothing for an unknown prefix, no separator or an empty item', () => {
    assert.equal(splitPrefixedName('nosuch__x', ['a', 'b']), undefined)
    assert.equal(splitPrefixedName('echo', ['a', 'b']), undefined)
    assert.equal(splitPrefixedName('a__', ['a']), undefined)
  })

  it('names upstream names that would make prefixed names ambiguous', () => {
    assert.equal(ambiguousUpstreamNames(['a', 'b', 'a_b', 'ab__']), null)
    assert.match(ambiguousUpstreamNames(['a__b', 'c', 'a']) ?? '', /"a" and "a__b" are ambiguous/)
    assert.match(ambiguousUpstreamNames(['db', 'db__x__y']) ?? '', /"db" and "db__x__y"/)
    assert.match(
      ambiguousUpstreamNames(['a', 'a_']) ?? '',
      /"a" and "a_" are ambiguous: "a___x" would be "_x" of "a" and "x" of "a_"/,
    )
    assert.match(ambiguousUpstreamNames(['db_', 'db__']) ?? '', /"db_" and "db__"/)
    assert.equal(ambiguousUpstreamNames(['a', 'a']), null, 'duplicates are refused elsewhere')
  })
})
