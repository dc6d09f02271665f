/**
 * Rug-pull pins of a tool whose name holds a secret (a server that lists `use-ghp_…`), on SQLite
 * always and PostgreSQL when TEST_DATABASE_URL is set: the pin's row, the `tool.changed` change
 * and a held call's reason name it by its key (masked, with a digest), never as listed; hold mode
 * still leaves it out of the listing by the name the server gave it, holds its calls, and lets
 * the owner approve it by its key. Before, the name was stored, shown and sent as listed (found
 * by a hostile review).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { pinKeyOf } from '../../src/governance/pin-key.js'
import { Redactor } from '../../src/governance/redactor.js'
import { unapprovedIn } from '../../src/governance/replayed-listing.js'
import { ToolPins, type ToolChange } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const SECRET = `ghp_${'A1b2C3d4E5'.repeat(4)}`
const NAME = `use-${SECRET}`
const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})
// The default redaction: the built-in detectors on (they mask the definition's `name` field).
const redactor = new Redactor({ keys: [], patterns: [], detectSecrets: true, forwarded: false })
const FIRST = { cursor: null, nextCursor: null, zeroKnowledge: false, redactor } as const

for (const backend of testBackends()) {
  describe(`pins of a tool whose name holds a secret, on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }
    let changes: ToolChange[]
    let pins: ToolPins
    const now = Date.parse('2026-05-06T07:08:09.000Z')

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
        now: () => now,
      })
    })

    afterEach(async () => {
      await pins.settled()
      await store.close()
      await database.drop()
    })

    async function list(tools: readonly unknown[], mode: 'alert' | 'hold') {
      const hidden = pins.observe(tunnel, await pins.state(tunnel.id), tools, { ...FIRST, mode })
      await pins.settled()
      return hidden
    }

    const stored = async () => JSON.stringify(await store.toolPins.load(tunnel.id))

    it('pins, announces and holds it by its key, and hides it by its listed name', async () => {
      const key = pinKeyOf(NAME)
      await list([tool('read'), tool(NAME)], 'hold')
      const rows = (await store.toolPins.load(tunnel.id)).pins.map((r) => r.name).sort()
      assert.deepEqual(rows, ['read', key].sort())
      assert.ok(!(await stored()).includes(SECRET))

      // A change: recorded and announced under the key; the listed name is left out.
      const hidden = await list([tool('read'), tool(NAME, 'now exfiltrates')], 'hold')
      assert.deepEqual([...hidden], [NAME])
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [[key, 'changed']],
      )
      assert.ok(!JSON.stringify(changes).includes(SECRET))
      const state = await pins.state(tunnel.id)
      const reason = pins.heldReason(tunnel, state, NAME, 'hold') ?? ''
      assert.match(reason, /changed since its owner approved it/)
      assert.ok(reason.includes(key) && !reason.includes(SECRET), reason)
      // A replayed listing is judged by the same key.
      assert.deepEqual([...unapprovedIn(state, [tool(NAME, 'now exfiltrates')], 'hold')], [NAME])

      // The owner approves it by its key; it is listed and called again.
      const current = (await store.toolPins.load(tunnel.id)).pins.find((r) => r.name === key)!
      assert.equal(
        await store.toolPins.decide(tunnel.id, key, 'approved', 'owner', new Date(now), {
          hash: current.currentHash,
        }),
        'decided',
      )
      await pins.changed(tunnel.id)
      assert.equal(pins.heldReason(tunnel, await pins.state(tunnel.id), NAME, 'hold'), null)
      assert.deepEqual([...(await list([tool('read'), tool(NAME, 'now exfiltrates')], 'hold'))], [])
      assert.ok(!(await stored()).includes(SECRET))
      const decisions = await store.toolPins.decisions(tunnel.id)
      assert.deepEqual(
        decisions.map((d) => d.name),
        [key],
      )
    })

    it('keeps the definition under its key with the detectors off, and keys a huge name never', async () => {
      const off = new Redactor({ keys: [], patterns: [], detectSecrets: false, forwarded: false })
      const state = await pins.state(tunnel.id)
      pins.observe(tunnel, state, [tool(NAME, 'runs it')], {
        ...FIRST,
        redactor: off,
        mode: 'alert',
      })
      await pins.settled()
      const row = (await store.toolPins.load(tunnel.id)).pins[0]!
      assert.equal(row.name, pinKeyOf(NAME))
      assert.equal((JSON.parse(row.approvedDefinition!) as { name: string }).name, row.name)
      assert.ok(!(await stored()).includes(SECRET))
      // A call naming a tool of megabytes is refused as unpinnable, without a scan for secrets.
      const huge = `x-${SECRET}-${'eyJ.'.repeat(1_000_000)}`
      const reason = pins.heldReason(tunnel, await pins.state(tunnel.id), huge, 'hold') ?? ''
      assert.match(reason, /over 1024 characters/)
    })

    it('a new tool whose name holds a secret is held by its key, and a new name unknown too', async () => {
      await list([tool('read')], 'hold')
      const hidden = await list([tool('read'), tool(NAME)], 'hold')
      assert.deepEqual([...hidden], [NAME])
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [[pinKeyOf(NAME), 'new']],
      )
      const state = await pins.state(tunnel.id)
      const other = `call-${SECRET}`
      const reason = pins.heldReason(tunnel, state, other, 'hold') ?? ''
      assert.match(reason, /is not among the tools this tunnel's owner approved/)
      assert.ok(!reason.includes(SECRET), reason)
      assert.ok(reason.includes(pinKeyOf(other)), reason)
    })
  })
}
