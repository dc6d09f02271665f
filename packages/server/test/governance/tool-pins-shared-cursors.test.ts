/**
 * Lists that reach the same cursor (a server whose cursors are offsets gives every list the
 * same; a hostile one can give another list the baseline's): the baseline's next page is the
 * baseline's, whichever agent asks for it, and the other list is compared with it. Before, the
 * other list took the baseline's place at that cursor: the baseline's later pages were compared
 * as another list's, their tools held as not yet compared (in `alert` mode too) until the
 * baseline gave up 60 s later, then judged `new`: false alarms, each one.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
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
  describe(`lists sharing a cursor on ${backend.name}`, () => {
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
    ) {
      const state = await pins.state(tunnel.id)
      const listed: ListPage = { cursor, nextCursor, mode: 'alert', zeroKnowledge: false }
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

    for (const first of ['baseline', 'other'] as const) {
      it(`the baseline's next page is the baseline's when the ${first} agent asks first`, async () => {
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
        clock += BASELINE_PAGING_MS
        await page([tool('a'), tool('b'), tool('c')], null, null)
        assert.equal(changes.length, 0)
      })
    }

    it('a second page that differs from the baseline is compared with it', async () => {
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
