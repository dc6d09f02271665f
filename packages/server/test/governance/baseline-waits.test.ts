/**
 * A tool another listing shows while the first listing (the baseline) still pages, that the
 * baseline does not hold yet: not judged until the baseline is whole (or has waited its 60 s for
 * a next page), so it is left out of that listing in `alert` mode too, and a call to it is held
 * (`tool_held`, saying why) until then; then it is judged as any listing's tool. Before, in
 * `alert` mode it reached the agent, and its calls the server, before it was judged.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
import { page, pinBench, tool, type PinBench } from '../helpers/pin-bench.js'
import { testBackends } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`tools shown while the baseline pages, on ${backend.name}`, () => {
    let b: PinBench

    beforeEach(async () => {
      b = await pinBench(backend)
    })

    afterEach(async () => {
      await b.close()
    })

    const held = async (name: string, mode: 'alert' | 'hold' = 'alert') =>
      b.pins.heldReason(b.tunnel, await b.pins.state(b.tunnel.id), name, mode)

    it('alert mode leaves them out of the other listing and holds their calls until judged', async () => {
      await b.list([tool('a'), tool('b')], page(null, 'p2'))
      // A second agent's listing: a and b as the baseline has them, c and d not held yet.
      const hidden = await b.list(
        [tool('a'), tool('b'), tool('c', 'evil c'), tool('d')],
        page(null, null),
      )
      assert.deepEqual([...hidden].sort(), ['c', 'd'])
      assert.match((await held('c')) ?? '', /"c" is not yet compared .* list the tools again then/)
      assert.match((await held('never-listed')) ?? '', /not yet compared/)
      assert.equal(await held('a'), null, 'what the baseline holds is not held')
      assert.deepEqual(b.raised(), [])

      // The baseline is whole: c was another definition, d was never in it.
      assert.deepEqual([...(await b.list([tool('c')], page('p2', null)))], [])
      assert.deepEqual(b.raised().sort(), [
        ['c', 'changed'],
        ['d', 'new'],
      ])
      assert.equal(await held('c'), null, 'alert mode: judged, alerted, let through')
      assert.equal(await held('d'), null)
      assert.equal(await held('never-listed'), null)
      const again = [tool('a'), tool('b'), tool('c', 'evil c'), tool('d')]
      assert.deepEqual([...(await b.list(again, page(null, null)))], [])
    })

    it('the baseline’s own pages are never left out, and what matches it raises nothing', async () => {
      assert.deepEqual([...(await b.list([tool('a')], page(null, 'p2')))], [])
      assert.deepEqual([...(await b.list([tool('a'), tool('b')], page(null, null)))], ['b'])
      assert.deepEqual([...(await b.list([tool('b')], page('p2', null)))], [])
      assert.deepEqual(b.raised(), [])
      assert.equal(await held('b'), null)
    })

    it('hold mode holds a call to any tool the paging baseline does not hold yet', async () => {
      await b.list([tool('a')], page(null, 'p2', 'hold'))
      assert.match((await held('x', 'hold')) ?? '', /"x" is not yet compared/)
      assert.equal(await held('a', 'hold'), null)
      await b.list([tool('x')], page('p2', null, 'hold'))
      assert.equal(await held('x', 'hold'), null, 'the baseline approved it')
      assert.match((await held('y', 'hold')) ?? '', /not among the tools/)
    })

    it('a baseline whose next page never comes is judged after 60 s at the next call, no reload needed', async () => {
      await b.list([tool('a')], page(null, 'p2'))
      assert.deepEqual([...(await b.list([tool('a'), tool('x')], page(null, null)))], ['x'])
      const state = await b.pins.state(b.tunnel.id)
      b.clock += BASELINE_PAGING_MS - 1
      assert.match(b.pins.heldReason(b.tunnel, state, 'x', 'alert') ?? '', /not yet compared/)
      b.clock += 1
      // The same state in memory (no reload): the wait is over, x is judged and let through.
      assert.equal(b.pins.heldReason(b.tunnel, state, 'x', 'alert'), null)
      await b.pins.settled()
      assert.deepEqual(b.raised(), [['x', 'new']])
      assert.equal(state.baselining, false)
    })

    it('hostile: many agents listing at once while the baseline pages, one alert per change', async () => {
      await b.list([tool('a')], page(null, 'p2'))
      const evil = [tool('a'), tool('c', 'evil c'), tool('d')]
      const state = await b.pins.state(b.tunnel.id)
      const hidden = Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? b.pins.observe(b.tunnel, state, evil, page(null, null))
          : b.pins.observe(b.tunnel, state, evil, page(null, `q${i}`)),
      )
      await b.pins.settled()
      for (const h of hidden) assert.deepEqual([...h].sort(), ['c', 'd'])
      assert.deepEqual(b.raised(), [])
      await b.list([tool('c')], page('p2', null))
      assert.deepEqual(b.raised().sort(), [
        ['c', 'changed'],
        ['d', 'new'],
      ])
    })
  })
}
