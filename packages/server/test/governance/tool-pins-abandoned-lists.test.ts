/**
 * A paginated list no agent finishes (a client that reads a first page only, or one that stops
 * on an error): a new tool on it that could be an approved one renamed waits for the list's end,
 * which never comes. It is judged `new` once the list is given up, 60 s after its last page
 * (or when a bound drops it). Before, it waited for good: `alert` mode passed it with no alert,
 * and `hold` mode held it without ever showing it to the owner for approval.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { ToolPins, type ListPage, type ToolChange } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})

for (const backend of testBackends()) {
  describe(`lists no agent finishes on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }
    let changes: ToolChange[]
    let pins: ToolPins
    let clock: number

    /** A page of `tools` asked with `cursor`, ending at `nextCursor`: the names left out. */
    async function page(
      tools: readonly unknown[],
      cursor: string | null,
      nextCursor: string | null,
      mode: RugPullMode = 'alert',
    ) {
      const state = await pins.state(tunnel.id)
      const listed: ListPage = { cursor, nextCursor, mode, zeroKnowledge: false }
      const hidden = pins.observe(tunnel, state, tools, listed)
      await pins.settled()
      return [...hidden]
    }

    const statuses = async () =>
      Object.fromEntries(
        (await store.toolPins.load(tunnel.id)).pins.map((row) => [row.name, row.status]),
      )

    beforeEach(async () => {
      clock = Date.parse('2026-05-06T07:08:09.000Z')
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
      const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
      tunnel = { id: created.tunnel.id, accountId: account.id }
      changes = []
      pins = new ToolPins({
        store: store.toolPins,
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: (c) => {
          changes.push(c)
        },
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
        now: () => clock,
      })
    })

    afterEach(async () => {
      await pins.settled()
      await store.close()
      await database.drop()
    })

    for (const mode of ['alert', 'hold'] as const) {
      it(`a tool that waited for a rename is new once its list is given up (${mode})`, async () => {
        await page([tool('read', 'reads'), tool('b')], null, null, mode)
        // `wipe` has `read`'s definition: a rename, if the rest of the list lacks `read`.
        const hidden = await page([tool('wipe', 'reads')], null, 'p2', mode)
        assert.deepEqual(hidden, mode === 'hold' ? ['wipe'] : [])
        assert.equal(changes.length, 0, 'it waits for the end of its list')
        // No agent asks for p2. A call 60 s on gives the list up.
        clock += BASELINE_PAGING_MS
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
      await page([tool('read', 'reads'), tool('b')], null, null)
      await page([tool('wipe', 'reads')], null, 'p2')
      clock += BASELINE_PAGING_MS - 1
      await page([tool('b')], 'p2', null)
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change, c.renamedFrom]),
        [['wipe', 'renamed', 'read']],
      )
    })
  })
}
