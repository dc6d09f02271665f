/**
 * Lists that reach the same cursor (a server whose cursors are offsets gives every list the
 * same; a hostile one can give another list the baseline's): the baseline's next page is the
 * baseline's, whichever agent asks for it, and the other list is compared with it. Before, the
 * other list took the baseline's place at that cursor: the baseline's later pages were compared
 * as another list's, their tools held as not yet compared (in `alert` mode too) until the
 * baseline gave up 60 s later, then judged `new`: false alarms, each one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
import { testBackends } from '../helpers/test-databases.js'
import { pagingPins, tool } from './paging-pins.js'

for (const backend of testBackends()) {
  describe(`lists sharing a cursor on ${backend.name}`, () => {
    const t = pagingPins(backend)

    for (const first of ['baseline', 'other'] as const) {
      it(`the baseline's next page is the baseline's when the ${first} agent asks first`, async () => {
        const { page, changes, pins, tunnel, statuses, advance } = t()
        // Agent A's first list is the baseline; agent B lists while it pages, same cursor.
        assert.deepEqual(await page([tool('a'), tool('b')], null, 'offset:2'), [])
        assert.deepEqual(await page([tool('a'), tool('b')], null, 'offset:2'), [])
        // Both ask for the second page; the first asked continues the baseline.
        const order = first === 'baseline' ? ['A', 'B'] : ['B', 'A']
        for (const agent of order) {
          assert.deepEqual(await page([tool('c')], 'offset:2', null), [], `agent ${agent}`)
        }
        assert.equal(changes.length, 0, 'nothing changed')
        assert.deepEqual(await statuses(), { a: 'approved', b: 'approved', c: 'approved' })
        const state = await pins.state(tunnel.id)
        assert.equal(state.baselining, false, 'the baseline is whole')
        assert.equal(pins.heldReason(tunnel, state, 'c', 'alert'), null)
        // Nothing waits to be judged later either.
        advance(BASELINE_PAGING_MS)
        await page([tool('a'), tool('b'), tool('c')], null, null)
        assert.equal(changes.length, 0)
      })
    }

    it('a second page that differs from the baseline is compared with it', async () => {
      const { page, changes } = t()
      await page([tool('a')], null, 'offset:1')
      await page([tool('a')], null, 'offset:1')
      assert.deepEqual(await page([tool('c')], 'offset:1', null), [])
      // The other list's page shows another c: a change, told at once.
      await page([tool('c', 'now uploads your keys')], 'offset:1', null)
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [['c', 'changed']],
      )
    })
  })
}
