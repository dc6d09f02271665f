/**
 * A paginated list no agent finishes (a client that reads a first page only, or one that stops
 * on an error): a new tool on it that could be an approved one renamed waits for the list's end,
 * which never comes. It is judged `new` once the list is given up, 60 s after its last page
 * (or when a bound drops it). Before, it waited for good: `alert` mode passed it with no alert,
 * and `hold` mode held it without ever showing it to the owner for approval.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
import { testBackends } from '../helpers/test-databases.js'
import { pagingPins, tool } from './paging-pins.js'

for (const backend of testBackends()) {
  describe(`lists no agent finishes on ${backend.name}`, () => {
    const t = pagingPins(backend)

    for (const mode of ['alert', 'hold'] as const) {
      it(`a tool that waited for a rename is new once its list is given up (${mode})`, async () => {
        const { page, changes, pins, tunnel, statuses, advance } = t()
        await page([tool('read', 'reads'), tool('b')], null, null, mode)
        // `wipe` has `read`'s definition: a rename, if the rest of the list lacks `read`.
        const hidden = await page([tool('wipe', 'reads')], null, 'p2', mode)
        assert.deepEqual(hidden, mode === 'hold' ? ['wipe'] : [])
        assert.equal(changes.length, 0, 'it waits for the end of its list')
        // No agent asks for p2. A call 60 s on gives the list up.
        advance(BASELINE_PAGING_MS)
        const state = await pins.state(tunnel.id)
        const reason = pins.heldReason(tunnel, state, 'wipe', mode)
        await pins.settled()
        assert.deepEqual(
          changes.map((c) => [c.tool, c.change]),
          [['wipe', 'new']],
        )
        assert.deepEqual(await statuses(), { b: 'approved', read: 'approved', wipe: 'new' })
        if (mode === 'hold') assert.match(reason ?? '', /"wipe" is new since/)
        else assert.equal(reason, null)
        // The list's next page, asked late, is another list's: nothing is judged removed from it.
        await page([tool('b')], 'p2', null, mode)
        assert.equal((await statuses()).read, 'approved')
      })
    }

    it('a list still paging is not given up', async () => {
      const { page, changes, advance } = t()
      await page([tool('read', 'reads'), tool('b')], null, null)
      await page([tool('wipe', 'reads')], null, 'p2')
      advance(BASELINE_PAGING_MS - 1)
      await page([tool('b')], 'p2', null)
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change, c.renamedFrom]),
        [['wipe', 'renamed', 'read']],
      )
    })
  })
}
