/**
 * What the resource router remembers of URIs nobody listed, which agents choose: who served each,
 * within a bound of characters, the oldest forgotten first (an agent's 4 MiB URIs were all kept).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ListAggregator } from '../../src/aggregator/list-aggregator.js'
import {
  LEARNT_ENTRY_CHARS,
  MAX_LEARNT_CHARS,
  ResourceRouter,
} from '../../src/aggregator/resource-router.js'
import type { UpstreamLink } from '../../src/aggregator/upstream-link.js'

/** Upstream `name`, serving every URI when `serves`; `asked` lists the URIs it was asked for. */
function link(name: string, serves: boolean): { link: UpstreamLink; asked: string[] } {
  const asked: string[] = []
  const fake = {
    name,
    ready: true,
    capability: (c: string) => (c === 'resources' ? {} : undefined),
    request: async (_method: string, params: { uri: string }) => {
      asked.push(params.uri)
      if (!serves) throw new Error('Resource not found')
      return { contents: [] }
    },
  }
  return { link: fake as unknown as UpstreamLink, asked }
}

describe('ResourceRouter', () => {
  it("remembers who served agents' URIs within its bound, oldest forgotten first", async () => {
    const a = link('a', false)
    const b = link('b', true)
    const lists = { fetchAll: async () => [] } as unknown as ListAggregator
    const router = new ResourceRouter([a.link, b.link], () => lists)
    const read = (uri: string) => router.route(uri, 'resources/read', { uri }, {}, () => true)
    const u = 'any://first'
    assert.equal((await read(u)).link.name, 'b')
    assert.deepEqual(a.asked, [u])
    await read(u)
    assert.deepEqual(a.asked, [u], 'b is remembered')
    // A URI longer than the bound is served, not remembered.
    const huge = `any://${'x'.repeat(MAX_LEARNT_CHARS)}`
    await read(huge)
    await read(huge)
    assert.equal(a.asked.filter((x) => x === huge).length, 2)
    // URIs past the bound push the oldest out.
    for (let n = 0; n < 20; n++) await read(`any://${n}/${'y'.repeat(MAX_LEARNT_CHARS / 16)}`)
    await read(u)
    assert.equal(a.asked.filter((x) => x === u).length, 2, 'the first was forgotten')
  })

  it('counts each remembered URI at more than its characters, so tiny URIs are bounded too', async () => {
    const a = link('a', false)
    const b = link('b', true)
    const lists = { fetchAll: async () => [] } as unknown as ListAggregator
    const router = new ResourceRouter([a.link, b.link], () => lists)
    const read = (uri: string) => router.route(uri, 'resources/read', { uri }, {}, () => true)
    // Before, a million one-character URIs fitted the bound: a map of a million entries.
    const fit = Math.floor(MAX_LEARNT_CHARS / LEARNT_ENTRY_CHARS)
    await read('0')
    for (let n = 1; n <= fit; n++) await read(n.toString(36))
    await read('0')
    assert.equal(a.asked.filter((x) => x === '0').length, 2, 'the first was forgotten')
  })
})
