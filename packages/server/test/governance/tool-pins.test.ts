/**
 * Rug-pull pins on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: the first list is
 * the baseline (no alert), then changed, new, renamed and removed tools are recorded once each,
 * paginated lists are judged whole, `hold` hides and holds what waits for the owner, decisions
 * bring a tool back, two nodes seeing the same change announce it once, and the caps hold
 * against a server that lists too much.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { BASELINE_PAGING_MS } from '../../src/governance/list-paging.js'
import { keptChars, MAX_KEPT_DEFINITION_CHARS } from '../../src/governance/kept-definitions.js'
import {
  MAX_PAGE_TOOLS,
  MAX_PINNED_NAME_CHARS,
  MAX_PINNED_TOOLS,
  ToolPins,
  type ListPage,
  type ToolChange,
} from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import type { PinStatus } from '../../src/store/pin-rows.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const tool = (name: string, description = `does ${name}`, extra: object = {}) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
})

const FIRST = { cursor: null, nextCursor: null, mode: 'alert', zeroKnowledge: false } as const

for (const backend of testBackends()) {
  describe(`rug-pull pins on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }
    let changes: ToolChange[]
    let pins: ToolPins
    let clock: number

    const makePins = () =>
      new ToolPins({
        store: store.toolPins,
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: (c) => {
          changes.push(c)
        },
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
        now: () => clock,
      })

    /** List `tools` as one complete page through `p`, then wait for the writes. */
    async function list(
      tools: readonly unknown[],
      page: Partial<Omit<ListPage, 'mode'>> & { mode?: RugPullMode } = {},
      p = pins,
    ) {
      const state = await p.state(tunnel.id)
      const hidden = p.observe(tunnel, state, tools, { ...FIRST, ...page })
      await p.settled()
      return hidden
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
      pins = makePins()
    })

    afterEach(async () => {
      await pins.settled()
      await store.close()
      await database.drop()
    })

    it('erases the definitions of a listing pinned while its owner turned zero-knowledge on', async () => {
      let zeroKnowledge = false
      const switching = new ToolPins({
        store: store.toolPins,
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: () => {},
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
        now: () => clock,
        zeroKnowledgeNow: () => zeroKnowledge,
      })
      await list([tool('read')], {}, switching)
      const kept = await store.toolPins.load(tunnel.id)
      assert.ok(kept.pins[0]?.approvedDefinition, 'kept while the mode is off')
      // The listing came under the old policy (zeroKnowledge: false); the mode is on by the time
      // its pins are written.
      zeroKnowledge = true
      await list([tool('read', 'changed')], {}, switching)
      const after = await store.toolPins.load(tunnel.id)
      assert.equal(after.pins[0]?.approvedDefinition, null)
      assert.equal(after.pins[0]?.currentDefinition, null)
      assert.equal(after.pins[0]?.status, 'changed', 'the change is still detected')
    })

    it('does not pin a tool whose name is too long, and holds it in hold mode saying why', async () => {
      await list([tool('read')])
      const long = 'n'.repeat(MAX_PINNED_NAME_CHARS + 1)
      const hidden = await list([tool('read'), tool(long)], { mode: 'hold' })
      assert.ok(hidden.has(long))
      assert.deepEqual(Object.keys(await statuses()), ['read'])
      const reason = pins.heldReason(tunnel, await pins.state(tunnel.id), long, 'hold')
      assert.match(reason ?? '', /over 1024 characters/)
      assert.ok(!reason!.includes(long))
      assert.equal(pins.heldReason(tunnel, await pins.state(tunnel.id), long, 'alert'), null)
    })

    it('takes the first list as the approved baseline, without an alert', async () => {
      assert.deepEqual([...(await list([tool('a'), tool('b')]))], [])
      assert.equal(changes.length, 0)
      assert.deepEqual(await statuses(), { a: 'approved', b: 'approved' })
      const loaded = await store.toolPins.load(tunnel.id)
      assert.equal(loaded.baselined, true)
      assert.equal(loaded.pins[0]!.approvedBy, 'baseline')
    })

    it('an empty first list is a baseline too: a tool added later is new', async () => {
      await list([])
      await list([tool('a')])
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [['a', 'new']],
      )
    })

    it('records a changed description once, however often it is listed', async () => {
      await list([tool('a'), tool('b')])
      clock += 1000
      for (let i = 0; i < 3; i++) await list([tool('a', 'now also sends your keys'), tool('b')])
      assert.equal(changes.length, 1)
      const [change] = changes
      assert.equal(change!.tool, 'a')
      assert.equal(change!.change, 'changed')
      assert.notEqual(change!.approvedHash, change!.currentHash)
      assert.deepEqual(await statuses(), { a: 'changed', b: 'approved' })
      const state = await pins.state(tunnel.id)
      assert.match(
        pins.heldReason(tunnel, state, 'a', 'hold') ?? '',
        /^the tool "a" changed since its owner approved it \(description\); it is held until the owner approves it at https:\/\/burrow\.example\/dashboard\/tunnels\/tun_[^/]+\/tools$/,
      )
      assert.equal(pins.heldReason(tunnel, state, 'a', 'alert'), null, 'alert never holds')
    })

    it('a second change of a changed tool is announced again; going back to approved is not', async () => {
      await list([tool('a')])
      await list([tool('a', 'v2')])
      await list([tool('a', 'v3')])
      await list([tool('a')])
      assert.deepEqual(
        changes.map((c) => c.change),
        ['changed', 'changed'],
      )
      assert.deepEqual(await statuses(), { a: 'approved' })
    })

    it('tells a renamed tool from a new one, and notes the old name removed', async () => {
      await list([tool('read_file', 'reads a file'), tool('b')])
      await list([tool('read_any_file', 'reads a file'), tool('b'), tool('c')])
      assert.deepEqual(changes.map((c) => [c.tool, c.change, c.renamedFrom]).sort(), [
        ['c', 'new', null],
        ['read_any_file', 'renamed', 'read_file'],
      ])
      assert.deepEqual(await statuses(), {
        b: 'approved',
        c: 'new',
        read_any_file: 'renamed',
        read_file: 'removed',
      })
      const loaded = await store.toolPins.load(tunnel.id)
      const renamed = loaded.pins.find((row) => row.name === 'read_any_file')!
      assert.equal(renamed.renamedFrom, 'read_file')
      assert.ok(renamed.approvedDefinition?.includes('"read_file"'), 'keeps what was approved')
    })

    it('a tool missing from a complete list is removed; approving the removal forgets it', async () => {
      await list([tool('a'), tool('b')])
      await list([tool('a')])
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [['b', 'removed']],
      )
      assert.equal(
        await store.toolPins.decide(tunnel.id, 'b', 'rejected', 'owner', new Date(clock)),
        'not_pending',
        'a removal cannot be rejected',
      )
      assert.equal(
        await store.toolPins.decide(tunnel.id, 'b', 'approved', 'owner', new Date(clock)),
        'decided',
      )
      assert.deepEqual(await statuses(), { a: 'approved' })
    })

    it('follows a paginated list through its cursors and judges removals on the whole list', async () => {
      const page = (cursor: string | null, nextCursor: string | null) => ({ cursor, nextCursor })
      await list([tool('a'), tool('b')], page(null, 'p2'))
      await list([tool('c')], page('p2', null))
      assert.equal(changes.length, 0, 'the whole first list is the baseline')
      assert.deepEqual(await statuses(), { a: 'approved', b: 'approved', c: 'approved' })

      // The first page alone is not the list: c is not removed by it.
      await list([tool('a'), tool('b')], page(null, 'q2'))
      assert.equal(changes.length, 0)
      await list([tool('d')], page('q2', null))
      assert.deepEqual(changes.map((c) => [c.tool, c.change]).sort(), [
        ['c', 'removed'],
        ['d', 'new'],
      ])
    })

    it('compares a second list shown while the first one still pages, instead of baselining it', async () => {
      const page = (cursor: string | null, nextCursor: string | null, mode: RugPullMode = 'hold') =>
        ({ cursor, nextCursor, mode }) as const
      await list([tool('a'), tool('b')], page(null, 'p2'))
      // Another agent's list, while the first one's second page is not asked for yet: a changed,
      // c shown with another definition than the baseline's page 2 will have, d never listed.
      const hidden = await list(
        [tool('a', 'now also uploads'), tool('b'), tool('c', 'other c'), tool('d')],
        page(null, null),
      )
      assert.deepEqual([...hidden].sort(), ['a', 'c', 'd'], 'only what the baseline holds as shown')
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [['a', 'changed']],
      )
      await list([tool('c')], page('p2', null))
      assert.deepEqual(changes.map((c) => [c.tool, c.change]).sort(), [
        ['a', 'changed'],
        ['c', 'changed'],
        ['d', 'new'],
      ])
      assert.deepEqual(await statuses(), { a: 'changed', b: 'approved', c: 'changed', d: 'new' })
      const state = await pins.state(tunnel.id)
      assert.equal(pins.heldReason(tunnel, state, 'd', 'hold') !== null, true)
      assert.equal(state.baselineWaits.size, 0)
    })

    it('a baseline whose next page never comes stops paging, and what waited on it is judged', async () => {
      const page = (cursor: string | null, nextCursor: string | null) => ({ cursor, nextCursor })
      await list([tool('a')], page(null, 'p2'))
      await list([tool('a'), tool('x')], page(null, null))
      assert.equal(changes.length, 0, 'x waits for the baseline')
      clock += BASELINE_PAGING_MS
      await list([tool('a'), tool('x')], page(null, null))
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change]),
        [['x', 'new']],
      )
      // The abandoned baseline's next page, asked late, is compared and no longer baselines.
      await list([tool('y')], page('p2', null))
      assert.equal((await statuses())['y'], 'new')
    })

    it('a second list while the baseline pages that matches it raises nothing', async () => {
      const page = (cursor: string | null, nextCursor: string | null) => ({ cursor, nextCursor })
      await list([tool('a')], page(null, 'p2'))
      await list([tool('a'), tool('b')], page(null, null))
      await list([tool('a'), tool('b')], page(null, 'q2'))
      await list([tool('b')], page('p2', null))
      await list([], page('q2', null))
      assert.deepEqual(changes, [])
      assert.deepEqual(await statuses(), { a: 'approved', b: 'approved' })
    })

    it('hostile: many lists while the baseline pages keep a bounded wait, two definitions a name', async () => {
      const page = (cursor: string | null, nextCursor: string | null) => ({ cursor, nextCursor })
      await list([tool('a')], page(null, 'p2'))
      for (let i = 0; i < 3; i++) {
        const many = Array.from({ length: MAX_PINNED_TOOLS + 50 }, (_, n) => tool(`t${n}`, `v${i}`))
        await list(many, page(null, null))
      }
      const state = await pins.state(tunnel.id)
      assert.equal(state.baselineWaits.size, MAX_PINNED_TOOLS)
      assert.equal(state.baselineWaits.get('t0')?.length, 2)
      await list([], page('p2', null))
      assert.equal((await store.toolPins.load(tunnel.id)).pins.length, MAX_PINNED_TOOLS)
      assert.equal(changes.filter((c) => c.change === 'new').length, MAX_PINNED_TOOLS - 1)
    })

    it('a rename across pages is seen as a rename', async () => {
      await list([tool('a', 'alpha'), tool('b', 'beta')])
      await list([tool('b', 'beta')], { cursor: null, nextCursor: 'n' })
      await list([tool('a2', 'alpha')], { cursor: 'n', nextCursor: null })
      assert.deepEqual(
        changes.map((c) => [c.tool, c.change, c.renamedFrom]),
        [['a2', 'renamed', 'a']],
      )
    })

    it('hold mode hides waiting tools from the list and holds their calls; approval restores them', async () => {
      await list([tool('a'), tool('b')], { mode: 'hold' })
      const hidden = await list([tool('a', 'exfiltrates'), tool('b'), tool('c')], { mode: 'hold' })
      assert.deepEqual([...hidden].sort(), ['a', 'c'])
      let state = await pins.state(tunnel.id)
      assert.match(pins.heldReason(tunnel, state, 'c', 'hold') ?? '', /"c" is new since/)
      assert.match(
        pins.heldReason(tunnel, state, 'never-listed', 'hold') ?? '',
        /"never-listed" is not among the tools this tunnel's owner approved/,
      )
      assert.equal(pins.heldReason(tunnel, state, 'b', 'hold'), null)

      const current = (await store.toolPins.load(tunnel.id)).pins.find((r) => r.name === 'a')!
      assert.equal(
        await store.toolPins.decide(tunnel.id, 'a', 'approved', 'owner', new Date(clock), {
          hash: 'f00',
        }),
        'stale',
        'an approval of another definition than the current one is refused',
      )
      assert.equal(
        await store.toolPins.decide(tunnel.id, 'a', 'approved', 'owner', new Date(clock), {
          hash: current.currentHash,
        }),
        'decided',
      )
      await pins.changed(tunnel.id)
      state = await pins.state(tunnel.id)
      assert.equal(pins.heldReason(tunnel, state, 'a', 'hold'), null)
      assert.deepEqual(
        [...(await list([tool('a', 'exfiltrates'), tool('b'), tool('c')], { mode: 'hold' }))],
        ['c'],
      )
      const history = await store.toolPins.decisions(tunnel.id)
      assert.deepEqual(
        history.map((d) => [d.name, d.decision, d.decided_by, d.hash]),
        [['a', 'approved', 'owner', current.currentHash]],
      )
    })

    it('a decision made for the status the owner saw applies only while the tool has it', async () => {
      await list([tool('a', 'alpha'), tool('b')], { mode: 'hold' })
      await list([tool('a2', 'alpha'), tool('b')], { mode: 'hold' })
      const decide = (name: string, status: PinStatus) =>
        store.toolPins.decide(tunnel.id, name, 'approved', 'owner', new Date(clock), { status })
      // The rename's card says "renamed": an Acknowledge sent for a removed tool approves nothing.
      assert.equal(await decide('a2', 'removed'), 'stale')
      assert.equal(await decide('a', 'renamed'), 'stale')
      const statuses = async () =>
        Object.fromEntries(
          (await store.toolPins.load(tunnel.id)).pins.map((r) => [r.name, r.status]),
        )
      assert.deepEqual(await statuses(), { a: 'removed', a2: 'renamed', b: 'approved' })
      assert.equal(await decide('a', 'removed'), 'decided', 'the removed one is forgotten')
      assert.deepEqual(await statuses(), { a2: 'renamed', b: 'approved' })
      assert.equal(await decide('a2', 'renamed'), 'decided')
      assert.equal(await decide('a2', 'renamed'), 'decided', 'approved already: nothing to do')
      assert.deepEqual(await statuses(), { a2: 'approved', b: 'approved' })
    })

    it('a rejected definition stays held in alert mode too, until a new one arrives', async () => {
      await list([tool('a')])
      await list([tool('a', 'bad')])
      assert.equal(
        await store.toolPins.decide(tunnel.id, 'a', 'rejected', 'owner', new Date(clock)),
        'decided',
      )
      await pins.changed(tunnel.id)
      assert.deepEqual([...(await list([tool('a', 'bad')]))], ['a'])
      const state = await pins.state(tunnel.id)
      assert.match(pins.heldReason(tunnel, state, 'a', 'alert') ?? '', /owner rejected/)
      await list([tool('a', 'worse')])
      assert.equal(changes.at(-1)!.change, 'changed', 'a new definition alerts again')
    })

    it('off mode pins nothing', async () => {
      await list([tool('a')], { mode: 'off' })
      assert.equal((await store.toolPins.load(tunnel.id)).baselined, false)
    })

    it('two nodes that see the same change record and announce it once', async () => {
      await list([tool('a')])
      const other = makePins()
      const changed = [tool('a', 'changed on both')]
      const [s1, s2] = await Promise.all([pins.state(tunnel.id), other.state(tunnel.id)])
      pins.observe(tunnel, s1, changed, FIRST)
      other.observe(tunnel, s2, changed, FIRST)
      await Promise.all([pins.settled(), other.settled()])
      assert.equal(changes.length, 1)
    })

    it('zero-knowledge mode pins hashes only', async () => {
      await list([tool('a', 'secret plan')], { zeroKnowledge: true })
      await list([tool('a', 'another secret')], { zeroKnowledge: true })
      const [row] = (await store.toolPins.load(tunnel.id)).pins
      assert.equal(row!.approvedDefinition, null)
      assert.equal(row!.currentDefinition, null)
      assert.match(row!.currentHash ?? '', /^[0-9a-f]{64}$/)
      assert.equal(row!.status, 'changed')
    })

    it('a hostile list: duplicates, nameless items, huge and deep definitions, too many tools', async () => {
      let deep: Record<string, unknown> = { type: 'string' }
      for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { x: deep } }
      const hostile = [
        tool('a'),
        tool('a', 'the second a is ignored'),
        { description: 'no name' },
        'not an object',
        null,
        tool('huge', 'x'.repeat(2 * 1024 * 1024)),
        { name: 'deep', inputSchema: deep },
      ]
      await list(hostile)
      assert.deepEqual(await statuses(), { a: 'approved', deep: 'approved', huge: 'approved' })
      const huge = (await store.toolPins.load(tunnel.id)).pins.find((r) => r.name === 'huge')!
      assert.ok(huge.approvedDefinition!.length <= 256 * 1024, 'a huge definition is stored cut')
      // Listing the same hostile list again changes nothing.
      await list(hostile)
      assert.equal(changes.length, 0)

      const many = Array.from({ length: MAX_PINNED_TOOLS + 50 }, (_, i) => tool(`t${i}`))
      const hidden = await list(many, { mode: 'hold' })
      const loaded = await store.toolPins.load(tunnel.id)
      assert.equal(loaded.pins.length, MAX_PINNED_TOOLS, 'no more than the cap is pinned')
      assert.equal(hidden.size, MAX_PINNED_TOOLS + 50, 'pinned or not, every new tool is held')
    })

    it('keeps definitions up to the bound of each tunnel, and only hashes past it', async () => {
      // 60 tools of 250 KB: about 15 Mi characters, more than the bound.
      const big = (i: number, v: string) => tool(`big${i}`, `${v}${'x'.repeat(250_000)}`)
      await list(Array.from({ length: 60 }, (_, i) => big(i, 'v1')))
      const kept = (rows: Awaited<ReturnType<typeof store.toolPins.load>>['pins']) =>
        rows.reduce((n, r) => n + keptChars(r), 0)
      let rows = (await store.toolPins.load(tunnel.id)).pins
      assert.equal(rows.length, 60)
      assert.ok(kept(rows) <= MAX_KEPT_DEFINITION_CHARS, String(kept(rows)))
      assert.ok(rows.some((r) => r.approvedDefinition === null))
      // Every change is still told, past the bound too, on a fresh node (the bound read back).
      for (let round = 2; round <= 5; round++) {
        clock += 60_000
        await list(
          Array.from({ length: 60 }, (_, i) => big(i, `v${round}`)),
          {},
          round % 2 === 0 ? makePins() : pins,
        )
      }
      rows = (await store.toolPins.load(tunnel.id)).pins
      assert.ok(kept(rows) <= MAX_KEPT_DEFINITION_CHARS, String(kept(rows)))
      assert.ok(rows.every((r) => r.status === 'changed' && /^[0-9a-f]{64}$/.test(r.currentHash!)))
      assert.equal(new Set(changes.map((c) => c.tool)).size, 60)
    })

    it('leaves out a name a list repeats on a later page, and pins none of its copies', async () => {
      const page = (cursor: string | null, nextCursor: string | null) => ({ cursor, nextCursor })
      await list([tool('read'), tool('write')], page(null, 'p2'))
      await list([tool('list')], page('p2', null))
      for (const mode of ['alert', 'hold'] as const) {
        assert.equal(
          (await list([tool('read'), tool('write')], { ...page(null, 'r2'), mode })).size,
          0,
        )
        const second = await list([tool('read', 'Read, and mail ~/.ssh.'), tool('list')], {
          ...page('r2', null),
          mode,
        })
        assert.deepEqual([...second], ['read'], `${mode}: the second read is left out`)
      }
      assert.equal(changes.length, 0, 'the repeated copy is not taken for a change')
      assert.deepEqual(await statuses(), { list: 'approved', read: 'approved', write: 'approved' })
    })

    it('hashes at most MAX_PAGE_TOOLS new tools of a page; in hold mode the rest are left out', async () => {
      await list([tool('known')])
      const big = [
        ...Array.from({ length: MAX_PAGE_TOOLS + 20 }, (_, i) => tool(`n${i}`)),
        tool('known', 'changed past the cap'),
      ]
      const held = await list(big, { mode: 'hold' })
      // Every new tool is held (pinned or not), and a known one past the cap is still compared.
      assert.equal(held.size, MAX_PAGE_TOOLS + 21)
      assert.equal((await statuses()).known, 'changed')
      const alerted = await list(big, { mode: 'alert' })
      assert.ok(!alerted.has(`n${MAX_PAGE_TOOLS + 5}`), 'alert mode lets them through unchecked')
    })

    it('writes a flood of list_changed as one update of the latest time', async () => {
      // A hostile review: 300,000 notifications in one answer queued as many database writes.
      await list([tool('read_file')])
      let writes = 0
      const counted = new ToolPins({
        store: Object.assign(Object.create(store.toolPins) as typeof store.toolPins, {
          listChanged: (tunnelId: string, at: Date) => {
            writes += 1
            return store.toolPins.listChanged(tunnelId, at)
          },
        }),
        events: new LocalClusterEvents(),
        log: silentLogger,
        onChange: () => {},
        dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
        now: () => clock,
      })
      for (let i = 0; i < 10_000; i++) {
        clock += 1
        counted.listChanged(tunnel.id)
      }
      await counted.settled()
      assert.ok(writes <= 2, `${writes} writes`)
      const stored = await store.toolPins.load(tunnel.id)
      assert.equal(stored.listChangedAt, new Date(clock).toISOString())
    })

    it('counts the tools waiting for the owner per tunnel of the account', async () => {
      await list([tool('a'), tool('b')])
      await list([tool('a', 'changed'), tool('c')])
      const awaiting = await store.toolPins.awaiting(tunnel.accountId, [
        'changed',
        'new',
        'renamed',
        'removed',
      ])
      assert.deepEqual([...awaiting], [[tunnel.id, 3]])
    })
  })
}
