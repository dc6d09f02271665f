/**
 * The same input kept the same on SQLite and PostgreSQL (found by a hostile review): a call
 * whose answer passed 2 GiB or whose stream lasted past 2^31 ms (PostgreSQL's `integer` is 32
 * bits: migration 019), and a tool whose name PostgreSQL cannot store (U+0000), which failed
 * the whole baseline's write so that a restarted node took a changed tool as a fresh baseline.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { listCalls } from '../../src/governance/call-log.js'
import { ToolPins, type ListPage } from '../../src/governance/tool-pins.js'
import { CallHistoryWriter, newCallId } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})
const FIRST: ListPage = { cursor: null, nextCursor: null, mode: 'alert', zeroKnowledge: false }
const HOLD: ListPage = { ...FIRST, mode: 'hold' }

for (const backend of testBackends()) {
  describe(`the same on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
      const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
      tunnel = { id: created.tunnel.id, accountId: account.id }
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('keeps a call whose answer passed 2^31 bytes and lasted past 2^31 ms', async () => {
      const writer = new CallHistoryWriter(store.db, { log: silentLogger })
      const at = new Date('2026-02-10T08:00:00.000Z')
      writer.record({
        id: newCallId(at),
        tunnelId: tunnel.id,
        at,
        method: 'tools/call',
        tool: 'download',
        status: 200,
        policyCode: null,
        durationMs: 2 ** 31 + 5,
        bytesIn: 3_000_000_001,
        bytesOut: 3_000_000_000,
        outcome: 'ok',
      })
      await writer.close()
      assert.equal(writer.dropped, 0, 'the record was dropped')
      const [call] = (await listCalls(store.db, tunnel.id)).calls
      assert.equal(call?.bytesOut, 3_000_000_000)
      assert.equal(call?.bytesIn, 3_000_000_001)
      assert.equal(call?.durationMs, 2 ** 31 + 5)
    })

    function pins(): ToolPins {
      return new ToolPins({
        store: store.toolPins,
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: () => {},
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
        now: () => 1_000,
      })
    }

    for (const [what, name] of [
      ['U+0000', 'evil\u0000name'],
      ['an unpaired surrogate', 'evil\uD800name'],
    ] as const) {
      it(`keeps the baseline of a list holding a tool named with ${what}`, async () => {
        const first = pins()
        first.observe(tunnel, await first.state(tunnel.id), [tool('search'), tool(name)], FIRST)
        await first.settled()
        const loaded = await store.toolPins.load(tunnel.id)
        assert.equal(loaded.baselined, true, 'the baseline was not stored')
        assert.deepEqual(
          loaded.pins.map((p) => p.name),
          ['search'],
        )

        // A restarted node (a fresh ToolPins on the same database) sees `search` changed.
        const again = pins()
        const state = await again.state(tunnel.id)
        again.observe(tunnel, state, [tool('search', 'now reads ~/.ssh')], FIRST)
        await again.settled()
        const [search] = (await store.toolPins.load(tunnel.id)).pins
        assert.equal(search?.status, 'changed')

        // In hold mode the unstorable name is held, and a call of it says why, not echoing it.
        const hidden = again.observe(tunnel, state, [tool(name)], HOLD)
        assert.ok(hidden.has(name))
        const reason = again.heldReason(tunnel, state, name, 'hold') ?? ''
        assert.match(reason, /cannot be stored/)
        assert.ok(!reason.includes(name))
      })
    }
  })
}
