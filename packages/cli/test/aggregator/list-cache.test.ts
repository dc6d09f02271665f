/** List page snapshots: per upstream, list and cursor; invalidation wins over late fetches. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ListCache } from '../../src/aggregator/list-cache.js'

describe('ListCache', () => {
  it('keeps pages per upstream, list and cursor', () => {
    const cache = new ListCache()
    const first = { tools: [1], nextCursor: '5' }
    cache.set('a', 'tools/list', undefined, first, cache.epoch('a', 'tools/list'))
    cache.set('a', 'tools/list', '5', { tools: [2] }, cache.epoch('a', 'tools/list'))
    assert.deepEqual(cache.get('a', 'tools/list', undefined), first)
    assert.deepEqual(cache.get('a', 'tools/list', '5'), { tools: [2] })
    assert.equal(cache.get('b', 'tools/list', undefined), undefined)
    assert.equal(cache.get('a', 'prompts/list', undefined), undefined)
  })

  it('keeps at most its bound of pages of one list, against cursors that never end', () => {
    const cache = new ListCache()
    const epoch = cache.epoch('a', 'tools/list')
    cache.set('a', 'tools/list', undefined, { tools: [], nextCursor: 'c0' }, epoch)
    for (let n = 0; n < 1_500; n++) {
      cache.set('a', 'tools/list', `c${n}`, { tools: [n], nextCursor: `c${n + 1}` }, epoch)
    }
    assert.deepEqual(cache.get('a', 'tools/list', 'c998'), { tools: [998], nextCursor: 'c999' })
    assert.equal(cache.get('a', 'tools/list', 'c999'), undefined)
    // A kept page can still be replaced, and another list has a bound of its own.
    cache.set('a', 'tools/list', 'c0', { tools: ['again'] }, epoch)
    assert.deepEqual(cache.get('a', 'tools/list', 'c0'), { tools: ['again'] })
    const prompts = cache.epoch('a', 'prompts/list')
    cache.set('a', 'prompts/list', undefined, { prompts: [], nextCursor: 'p' }, prompts)
    cache.set('a', 'prompts/list', 'p', { prompts: [] }, prompts)
    assert.deepEqual(cache.get('a', 'prompts/list', 'p'), { prompts: [] })
  })

  it("keeps no page of a cursor the upstream did not issue (an agent's, forged)", () => {
    const cache = new ListCache()
    const epoch = cache.epoch('a', 'tools/list')
    cache.set('a', 'tools/list', 'forged', { tools: [0], nextCursor: 'n' }, epoch)
    assert.equal(cache.get('a', 'tools/list', 'forged'), undefined)
    cache.set('a', 'tools/list', 'n', { tools: [1] }, epoch)
    assert.equal(cache.get('a', 'tools/list', 'n'), undefined, 'a forged page issues nothing')
    cache.set('a', 'tools/list', undefined, { tools: [0], nextCursor: 'n' }, epoch)
    cache.set('a', 'tools/list', 'n', { tools: [1] }, epoch)
    assert.deepEqual(cache.get('a', 'tools/list', 'n'), { tools: [1] })
    // Invalidation forgets what was issued.
    cache.invalidate('a', ['tools/list'])
    cache.set('a', 'tools/list', 'n', { tools: [1] }, cache.epoch('a', 'tools/list'))
    assert.equal(cache.get('a', 'tools/list', 'n'), undefined)
  })

  it('forgets on invalidation, and ignores a page fetched before it', () => {
    const cache = new ListCache()
    const before = cache.epoch('a', 'tools/list')
    cache.set('a', 'tools/list', undefined, { tools: [1] }, before)
    cache.set('a', 'prompts/list', undefined, { prompts: [1] }, cache.epoch('a', 'prompts/list'))
    cache.invalidate('a', ['tools/list'])
    assert.equal(cache.get('a', 'tools/list', undefined), undefined)
    assert.deepEqual(cache.get('a', 'prompts/list', undefined), { prompts: [1] })
    cache.set('a', 'tools/list', undefined, { tools: ['stale'] }, before)
    assert.equal(cache.get('a', 'tools/list', undefined), undefined)
  })
})
