/**
 * Tool names that look like another tool's: a new tool `ѕеаrсһ` (all Cyrillic) beside the
 * approved `search` is flagged "looks like search" in the Tools view (and so the API and the
 * dashboard), in its `tool.changed` event and in a held call's refusal; a name imitating nothing
 * is not flagged; and the work stays one skeleton per name however often it is asked.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { looksLikeIn } from '../../src/governance/pin-lookalikes.js'
import { MAX_PINNED_NAME_CHARS } from '../../src/governance/pinnable-name.js'
import { ToolPins, MAX_PINNED_TOOLS, type ToolChange } from '../../src/governance/tool-pins.js'
import { toolsView } from '../../src/governance/tools-view.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { approvedRow, type PinRow } from '../../src/store/tool-pins-store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const CYRILLIC_SEARCH = '\u0455\u0435\u0430\u0433\u0441\u04bb'
const MIXED_READ = 're\u0430d_file'
/** "search" in Russian: Cyrillic letters that imitate no tool here. */
const POISK = '\u043f\u043e\u0438\u0441\u043a'

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})

const FIRST = { cursor: null, nextCursor: null, mode: 'hold', zeroKnowledge: false } as const

/** What `work` returns, and how many times it normalized a string (a skeleton does twice). */
async function countingNormalizations<T>(work: () => T | Promise<T>): Promise<[T, number]> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its `this` below
  const normalize = String.prototype.normalize
  let normalized = 0
  String.prototype.normalize = function (this: string, form?: string) {
    normalized++
    return normalize.call(this, form)
  }
  try {
    return [await work(), normalized]
  } finally {
    String.prototype.normalize = normalize
  }
}

for (const backend of testBackends()) {
  describe(`lookalike tool names on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string }
    let changes: ToolChange[]
    let pins: ToolPins

    async function list(tools: readonly unknown[]) {
      const state = await pins.state(tunnel.id)
      const hidden = pins.observe(tunnel, state, tools, FIRST)
      await pins.settled()
      return hidden
    }

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

    it('flags an all-Cyrillic `search` and a mixed-script `read_file`, not a name imitating nothing', async () => {
      await list([tool('search'), tool('read_file')])
      const hidden = await list([
        tool('search'),
        tool('read_file'),
        tool(CYRILLIC_SEARCH, 'searches better'),
        tool(MIXED_READ, 'reads better'),
        tool(POISK),
      ])
      assert.deepEqual([...hidden].sort(), [CYRILLIC_SEARCH, MIXED_READ, POISK].sort())

      const view = await toolsView(store.toolPins, tunnel.id)
      const looks = Object.fromEntries(view.tools.map((t) => [t.name, t.looksLike]))
      assert.deepEqual(looks, {
        [CYRILLIC_SEARCH]: 'search',
        [MIXED_READ]: 'read_file',
        [POISK]: null,
        search: null,
        read_file: null,
      })

      const events = Object.fromEntries(changes.map((c) => [c.tool, c.looksLike]))
      assert.deepEqual(events, {
        [CYRILLIC_SEARCH]: 'search',
        [MIXED_READ]: 'read_file',
        [POISK]: null,
      })

      const state = await pins.state(tunnel.id)
      assert.match(
        pins.heldReason(tunnel, state, CYRILLIC_SEARCH, 'hold') ?? '',
        new RegExp(
          `^the tool "${CYRILLIC_SEARCH}" \\(its name looks like the tool "search"\\) is new`,
        ),
      )
      assert.doesNotMatch(pins.heldReason(tunnel, state, POISK, 'hold') ?? '', /looks like/)
    })

    it('flags names of the longest pinned length', async () => {
      const prefix = 'x'.repeat(MAX_PINNED_NAME_CHARS - 6)
      await list([tool(prefix + 'search')])
      await list([tool(prefix + 'search'), tool(prefix + CYRILLIC_SEARCH)])
      const view = await toolsView(store.toolPins, tunnel.id)
      const flagged = view.tools.find((t) => t.name === prefix + CYRILLIC_SEARCH)
      assert.equal(flagged?.name.length, MAX_PINNED_NAME_CHARS)
      assert.equal(flagged?.looksLike, prefix + 'search')
      assert.equal(changes[0]?.looksLike, prefix + 'search')
    })

    it('reviews a tunnel of as many tools as are pinned with one skeleton per name', async () => {
      const prefix = 'z'.repeat(MAX_PINNED_NAME_CHARS - 10)
      const names = Array.from({ length: MAX_PINNED_TOOLS - 2 }, (_, i) => `${prefix}${i}`)
      names.push(`${prefix}7search`)
      await list(names.map((n) => tool(n)))
      const fake = `${prefix}7${CYRILLIC_SEARCH}`
      await list([...names, fake].map((n) => tool(n)))
      const [view, normalized] = await countingNormalizations(() =>
        toolsView(store.toolPins, tunnel.id),
      )
      assert.equal(view.tools.length, MAX_PINNED_TOOLS)
      assert.equal(view.tools.find((t) => t.name === fake)?.looksLike, `${prefix}7search`)
      assert.equal(normalized, 2 * MAX_PINNED_TOOLS)
    })
  })
}

describe('looksLikeIn', () => {
  const at = new Date('2026-05-06T07:08:09.000Z')
  const row = (name: string, status: PinRow['status']): PinRow => ({
    ...approvedRow(name, { hash: `h-${name}`, bodyHash: 'b', definition: null }, at),
    status,
    ...(status === 'new' ? { approvedHash: null } : {}),
  })

  it('flags only tools waiting for the owner or rejected', () => {
    const pins = new Map<string, PinRow>([
      ['search', row('search', 'approved')],
      [CYRILLIC_SEARCH, row(CYRILLIC_SEARCH, 'approved')],
    ])
    assert.equal(looksLikeIn(pins, CYRILLIC_SEARCH), null, 'approved by the owner')
    for (const status of ['new', 'changed', 'renamed', 'rejected'] as const) {
      const held = new Map(pins).set(CYRILLIC_SEARCH, row(CYRILLIC_SEARCH, status))
      assert.equal(looksLikeIn(held, CYRILLIC_SEARCH), 'search', status)
    }
    const gone = new Map(pins).set(CYRILLIC_SEARCH, row(CYRILLIC_SEARCH, 'removed'))
    assert.equal(looksLikeIn(gone, CYRILLIC_SEARCH), null)
    assert.equal(looksLikeIn(pins, 'unknown'), null)
  })

  it('computes one skeleton per name over many tools, however often a held call asks', async () => {
    const prefix = 'y'.repeat(MAX_PINNED_NAME_CHARS - 10)
    const pins = new Map<string, PinRow>()
    for (let i = 0; i < MAX_PINNED_TOOLS; i++) {
      const name = `${prefix}${String(i).padStart(4, '0')}search`
      pins.set(name, row(name, 'approved'))
    }
    const fake = `${prefix}0007${CYRILLIC_SEARCH}`
    pins.set(fake, row(fake, 'new'))
    const [, normalized] = await countingNormalizations(() => {
      for (let i = 0; i < 100; i++) {
        assert.equal(looksLikeIn(pins, fake), `${prefix}0007search`)
      }
      // A tool pinned later is indexed once too.
      const later = `${prefix}0009${CYRILLIC_SEARCH}`
      pins.set(later, row(later, 'new'))
      for (let i = 0; i < 100; i++) assert.equal(looksLikeIn(pins, later), `${prefix}0009search`)
    })
    assert.equal(normalized, 2 * (MAX_PINNED_TOOLS + 2))
  })
})
