/**
 * A tunnel's rug-pull pins on a real store, for tests: a fake clock, the `tool.changed` changes
 * raised, and shorthands to list a page, show a listing whose page is unknown (the GET stream's)
 * and read the stored statuses.
 */
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { unapprovedIn } from '../../src/governance/replayed-listing.js'
import { ToolPins, type ListPage, type ToolChange } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import type { TestBackend } from './test-databases.js'

/** A tool definition named `name`. */
export const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
})

/** How a page was asked for and answered, in `mode`. */
export const page = (
  cursor: string | null,
  nextCursor: string | null,
  mode: RugPullMode = 'alert',
): ListPage => ({ cursor, nextCursor, mode, zeroKnowledge: false })

/** One tunnel's pins on a fresh database of `backend`. */
export interface PinBench {
  readonly store: Store
  readonly tunnel: { readonly id: string; readonly accountId: string }
  readonly pins: ToolPins
  readonly changes: ToolChange[]
  /** The fake clock, in ms; tests move it. */
  clock: number
  /** A page of a `tools/list` answer to its request: the names left out of it. */
  list(tools: readonly unknown[], listed: ListPage): Promise<ReadonlySet<string>>
  /** A listing whose page is unknown (the GET stream's): the names left out of it. */
  stray(tools: readonly unknown[], mode: RugPullMode): Promise<ReadonlySet<string>>
  /** The stored status of each pinned tool. */
  statuses(): Promise<Record<string, string>>
  /** The changes raised so far, as `[tool, change]`. */
  raised(): [string, string][]
  close(): Promise<void>
}

export async function pinBench(backend: TestBackend): Promise<PinBench> {
  const database = await backend.create()
  const store = await openStore(database.config)
  const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
  const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
  const changes: ToolChange[] = []
  const bench: PinBench = {
    store,
    tunnel: { id: created.tunnel.id, accountId: account.id },
    changes,
    clock: Date.parse('2026-05-06T07:08:09.000Z'),
    pins: new ToolPins({
      store: store.toolPins,
      events: new LocalClusterEvents(),
      log: silentLogger,
      onChange: (c) => {
        changes.push(c)
      },
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
      now: () => bench.clock,
    }),
    async list(tools, listed) {
      const state = await bench.pins.state(bench.tunnel.id)
      const hidden = bench.pins.observe(bench.tunnel, state, tools, listed)
      await bench.pins.settled()
      return hidden
    },
    async stray(tools, mode) {
      const state = await bench.pins.state(bench.tunnel.id)
      bench.pins.observeReplayed(bench.tunnel, state, tools, mode, { zeroKnowledge: false })
      const left = unapprovedIn(state, tools, mode)
      await bench.pins.settled()
      return left
    },
    async statuses() {
      const loaded = await store.toolPins.load(bench.tunnel.id)
      return Object.fromEntries(loaded.pins.map((row) => [row.name, row.status]))
    },
    raised: () => changes.map((c) => [c.tool, c.change]),
    async close() {
      await bench.pins.settled()
      await store.close()
      await database.drop()
    },
  }
  return bench
}
