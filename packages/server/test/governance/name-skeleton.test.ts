import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LookalikeIndex, nameSkeleton, skeletonKey } from '../../src/governance/name-skeleton.js'
import { MAX_PINNED_NAME_CHARS } from '../../src/governance/pinnable-name.js'

/** `search` in Cyrillic letters only (ѕ е а г с һ). */
const CYRILLIC_SEARCH = '\u0455\u0435\u0430\u0433\u0441\u04bb'

describe('tool name skeletons (UTS #39)', () => {
  it('gives a name of lookalikes of one script the skeleton of the name it imitates', () => {
    assert.ok([...CYRILLIC_SEARCH].every((ch) => /\p{Script=Cyrillic}/u.test(ch)))
    assert.equal(nameSkeleton(CYRILLIC_SEARCH), nameSkeleton('search'))
    assert.equal(nameSkeleton('\u0405\u0415\u0410R\u0421\u041d'), 'SEARCH')
  })

  it('matches a name that mixes scripts, and one with invisible characters', () => {
    assert.equal(nameSkeleton('re\u0430d_file'), nameSkeleton('read_file'))
    assert.equal(nameSkeleton('read_f\u0456le'), nameSkeleton('read_file'))
    assert.equal(nameSkeleton('search\u200b'), nameSkeleton('search'))
    assert.equal(nameSkeleton('se\u00adarch'), nameSkeleton('search'))
  })

  it('normalizes before and after mapping: a precomposed letter is its decomposition', () => {
    assert.equal(nameSkeleton('caf\u00e9'), nameSkeleton('cafe\u0301'))
  })

  it('leaves names that imitate nothing apart', () => {
    assert.notEqual(nameSkeleton('search'), nameSkeleton('Search'))
    assert.notEqual(nameSkeleton('\u691c\u7d22'), nameSkeleton('search'))
    assert.equal(nameSkeleton('\u691c\u7d22'), '\u691c\u7d22')
  })

  it('has no key for a name longer than a pin may be, and one for the longest', () => {
    assert.equal(skeletonKey('a'.repeat(MAX_PINNED_NAME_CHARS + 1)), null)
    assert.equal(
      skeletonKey('\u0430'.repeat(MAX_PINNED_NAME_CHARS)),
      skeletonKey('a'.repeat(MAX_PINNED_NAME_CHARS)),
    )
    // A character of the longest prototype (18 characters) keeps its key small.
    assert.equal(skeletonKey('\ufdfa'.repeat(MAX_PINNED_NAME_CHARS))?.length, 43)
  })
})

describe('LookalikeIndex', () => {
  it('says which other name a name looks like, never itself', () => {
    const index = new LookalikeIndex(['search', 'read_file', CYRILLIC_SEARCH])
    assert.equal(index.looksLike(CYRILLIC_SEARCH), 'search')
    assert.equal(index.looksLike('search'), CYRILLIC_SEARCH)
    assert.equal(index.looksLike('read_file'), null)
    assert.equal(index.looksLike('\u043f\u043e\u0438\u0441\u043a'), null, 'поиск imitates nothing')
  })

  it('prefers the names given first', () => {
    const index = new LookalikeIndex(['search', 's\u0435arch', CYRILLIC_SEARCH])
    assert.equal(index.looksLike(CYRILLIC_SEARCH), 'search')
    assert.equal(index.looksLike('s\u0435arch'), 'search')
  })

  it('matches names of the longest pinned length, and not longer ones', () => {
    const long = 'x'.repeat(MAX_PINNED_NAME_CHARS - 6) + 'search'
    const fake = 'x'.repeat(MAX_PINNED_NAME_CHARS - 6) + CYRILLIC_SEARCH
    const tooLong = fake + 'x'
    const index = new LookalikeIndex([long, tooLong, long + 'x'])
    assert.equal(fake.length, MAX_PINNED_NAME_CHARS)
    assert.equal(index.looksLike(fake), long)
    assert.equal(index.looksLike(tooLong), null)
  })
})
