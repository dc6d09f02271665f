/**
 * A definition its owner rejected stays rejected when the server lists it again, however the
 * server alternates. Found by a hostile review: in `alert` mode, once the owner rejected a
 * changed definition, the server listed the approved one once (which restored the tool to
 * approved), then the rejected one again, which was merely `changed` again: alert mode passed it
 * to agents and the owner's rejection of that very definition was lost.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { AWAITING } from '../../src/governance/tools-view.js'
import { ToolPins, type ToolChange } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})

for (const backend of testBackends()) {
  describe(`rejected definitions on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }
    let changes: ToolChange[]
    let pins: ToolPins

    /** List `tools` as one complete page, then wait for the writes; the names left out. */
    async function list(tools: readonly unknown[], mode: RugPullMode = 'alert') {
      const state = await pins.state(tunnel.id)
      const page = { cursor: null, nextCursor: null, mode, zeroKnowledge: false }
      const hidden = pins.observe(tunnel, state, tools, page)
      await pins.settled()
      return [...hidden]
    }

    const decide = async (decision: 'approved' | 'rejected') => {
      const result = await store.toolPins.decide(tunnel.id, 'a', decision, 'owner', new Date())
      await pins.changed(tunnel.id)
      return result
    }

    const status = async () =>
      (await store.toolPins.load(tunnel.id)).pins.find((r) => r.name === 'a')?.status

    beforeEach(async () => {
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
      })
    })

    afterEach(async () => {
      await pins.settled()
      await store.close()
      await database.drop()
    })

    it('a rejected definition listed again after the approved one is still rejected', async () => {
      await list([tool('a')])
      await list([tool('a', 'bad')])
      assert.equal(await decide('rejected'), 'decided')
      assert.deepEqual(await list([tool('a')]), [], 'the approved definition is served')
      assert.equal(await status(), 'approved')
      const alerts = changes.length
      assert.deepEqual(await list([tool('a', 'bad')]), ['a'], 'the rejected one is left out')
      assert.equal(await status(), 'rejected')
      assert.equal(changes.length, alerts + 1, 'its return is told')
      const state = await pins.state(tunnel.id)
      assert.match(pins.heldReason(tunnel, state, 'a', 'alert') ?? '', /owner rejected/)
      // As often as the server alternates, and on a node that read the pins again.
      await pins.changed(tunnel.id)
      assert.deepEqual(await list([tool('a')]), [])
      assert.deepEqual(await list([tool('a', 'bad')]), ['a'])
    })

    it('every definition rejected stays so, whatever was listed between', async () => {
      await list([tool('a')])
      await list([tool('a', 'bad')])
      await decide('rejected')
      await list([tool('a', 'worse')])
      assert.equal(await status(), 'changed', 'another definition is a change')
      await decide('rejected')
      assert.deepEqual(await list([tool('a', 'bad')]), ['a'])
      assert.deepEqual(await list([tool('a', 'worse')]), ['a'])
      assert.deepEqual(await list([tool('a', 'bad')]), ['a'])
      assert.deepEqual(await list([tool('a', 'other')]), [], 'one never rejected alerts')
      assert.equal(changes.at(-1)?.change, 'changed')
    })

    it('a definition the owner approved after rejecting it is approved', async () => {
      await list([tool('a')])
      await list([tool('a', 'v2')])
      await decide('rejected')
      await list([tool('a')])
      await list([tool('a', 'v2')])
      assert.equal(await status(), 'rejected')
      // The owner changes their mind.
      assert.equal(await decide('approved'), 'decided')
      assert.deepEqual(await list([tool('a')]), [])
      assert.equal(await status(), 'changed', 'the former approved definition is a change')
      assert.deepEqual(await list([tool('a', 'v2')]), [])
      assert.equal(await status(), 'approved')
    })

    it('a rejected definition stays rejected after its removal is acknowledged', async () => {
      for (const mode of ['alert', 'hold'] as const) {
        await list([tool('a'), tool('b')], mode)
        await list([tool('a', 'bad'), tool('b')], mode)
        assert.equal(await decide('rejected'), 'decided')
        // The server drops the tool, and the owner acknowledges that (which forgets the tool).
        await list([tool('b')], mode)
        assert.equal(await status(), 'removed')
        assert.equal(await decide('approved'), 'decided')
        assert.equal(await status(), undefined, 'the Tools tab no longer shows it')
        assert.equal(await decide('approved'), 'unknown', 'nothing is left to decide')
        const awaiting = await store.toolPins.awaiting(tunnel.accountId, AWAITING)
        assert.equal(awaiting.get(tunnel.id), undefined, 'nothing waits for the owner')
        const alerts = changes.length
        // Before, the rejection went with the pin: the rejected definition came back `new`,
        // which alert mode passed to agents.
        assert.deepEqual(await list([tool('a', 'bad'), tool('b')], mode), ['a'], mode)
        assert.equal(await status(), 'rejected', mode)
        assert.equal(changes.length, alerts + 1, 'its return is told')
        assert.equal(changes.at(-1)?.change, 'changed')
        // Another definition under the forgotten name is new, as any tool no pin knows.
        assert.deepEqual(
          await list([tool('a', 'fine'), tool('b')], mode),
          mode === 'hold' ? ['a'] : [],
        )
        assert.equal(await status(), 'new')
        assert.deepEqual(await list([tool('a', 'bad'), tool('b')], mode), ['a'])
        assert.equal(await status(), 'rejected')
        // Reset for the next mode: a tunnel of its own.
        const created = await store.createTunnel({ accountId: tunnel.accountId, name: `t-${mode}` })
        tunnel = { id: created.tunnel.id, accountId: tunnel.accountId }
      }
    })

    it('a rejection of the old name survives an approved rename', async () => {
      await list([tool('a', 'alpha'), tool('b')])
      await list([tool('a', 'bad'), tool('b')])
      await decide('rejected')
      await list([tool('a', 'alpha'), tool('b')])
      assert.equal(await status(), 'approved', 'the approved definition is back')
      // Renamed: `c` lists what `a` was; approving the rename forgets `a`.
      await list([tool('c', 'alpha'), tool('b')])
      const renamed = await store.toolPins.decide(tunnel.id, 'c', 'approved', 'owner', new Date())
      assert.equal(renamed, 'decided')
      await pins.changed(tunnel.id)
      assert.equal(await status(), undefined)
      assert.deepEqual(await list([tool('a', 'bad'), tool('b'), tool('c', 'alpha')]), ['a'])
      assert.equal(await status(), 'rejected')
    })

    it("a forgotten tool's rejected definition on a GET stream is rejected again", async () => {
      await list([tool('a'), tool('b')])
      await list([tool('a', 'bad'), tool('b')])
      await decide('rejected')
      await list([tool('b')])
      await decide('approved')
      const state = await pins.state(tunnel.id)
      pins.observeReplayed(tunnel, state, [tool('a', 'bad')], 'alert', { zeroKnowledge: false })
      await pins.settled()
      assert.equal(await status(), 'rejected')
      assert.match(pins.heldReason(tunnel, state, 'a', 'alert') ?? '', /owner rejected/)
    })

    it('holds a rejected definition in hold mode when it comes back', async () => {
      await list([tool('a')], 'hold')
      await list([tool('a', 'bad')], 'hold')
      await decide('rejected')
      assert.deepEqual(await list([tool('a')], 'hold'), [])
      assert.deepEqual(await list([tool('a', 'bad')], 'hold'), ['a'])
      assert.equal(await status(), 'rejected')
    })
  })
}
