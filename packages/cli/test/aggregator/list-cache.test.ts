/** List page snapshots: per upstream, list and cursor; invalidation wins over late fetches. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ListCache } from '../../src/aggregator/list-cache.js'

describe('ListCache', () => {
  it('keeps pages per upstream, list and cursor', () => {
    const cache = new ListCache()
    cache.set('a', 'tools/list', undefined, { tools: [1] }, cache.epoch('a', 'tools/list'))
    cache.set('a', 'tools/list', '5', { tools: [2] }, cache.epoch('a', 'tools/list'))
    assert.deepEqual(cache.get('a', 'tools/list', undefined), { tools: [1] })
    assert.deepEqual(cache.get('a', 'tools/list', '5'), { tools: [2] })
    assert.equal(cache.get('b', 'tools/list', undefined), undefined)
    assert.equal(cache.get('a', 'prompts/list', undefined), undefined)
  })

  it('keeps at most its bound of pages of one list, against cursors that never end', () => {
    const cache = new ListCache()
    const epoch = cache.epoch('a', 'tools/list')
    for (let n = 0; n < 1_500; n++) cache.set('a', 'tools/list', `c${n}`, { tools: [n] }, epoch)
    assert.deepEqual(cache.get('a', 'tools/list', 'c999'), { tools: [999] })
    assert.equal(cache.get('a', 'tools/list', 'c1000'), undefined)
    // A kept page can still be replaced, and another list has a bound of its own.
    cache.set('a', 'tools/list', 'c0', { tools: ['again'] }, epoch)
    assert.deepEqual(cache.get('a', 'tools/list', 'c0'), { tools: ['again'] })
    cache.set('a', 'prompts/list', 'p', { prompts: [] }, cache.epoch('a', 'prompts/list'))
    assert.deepEqual(cache.get('a', 'prompts/list', 'p'), { prompts: [] })
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
