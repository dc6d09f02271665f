/**
 * The set-up of the tests of paginated tool lists against `ToolPins`: one tunnel's pins on a real
 * database (each backend of `testBackends`), a clock the test moves, the changes reported, and a
 * `page` helper that lists one page as an agent's answer would.
 */
import { afterEach, beforeEach } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { ToolPins, type ListPage, type ToolChange } from '../../src/governance/tool-pins.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import type { TestBackend, TestDatabase } from '../helpers/test-databases.js'

/** A tool definition named `name`. */
export const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})

/** One test's pins. */
export interface PagingPins {
  readonly store: Store
  readonly tunnel: { id: string; accountId: string }
  readonly changes: ToolChange[]
  readonly pins: ToolPins
  /** Move the pins' clock on by `ms`. */
  readonly advance: (ms: number) => void
  /** A page of `tools` asked with `cursor`, ending at `nextCursor`: the names left out. */
  readonly page: (
    tools: readonly unknown[],
    cursor: string | null,
    nextCursor: string | null,
    mode?: RugPullMode,
  ) => Promise<string[]>
  /** Each pin's status, by tool name. */
  readonly statuses: () => Promise<Record<string, string>>
}

/** Register, in the enclosing `describe`, a fresh `PagingPins` per test; returns its getter. */
export function pagingPins(backend: TestBackend): () => PagingPins {
  let current: PagingPins | undefined
  let database: TestDatabase
  beforeEach(async () => {
    let clock = Date.parse('2026-05-06T07:08:09.000Z')
    database = await backend.create()
    const store = await openStore(database.config)
    const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
    const created = await store.createTunnel({ accountId: account.id, name: 'tools' })
    const tunnel = { id: created.tunnel.id, accountId: account.id }
    const changes: ToolChange[] = []
    const pins = new ToolPins({
      store: store.toolPins,
      events: new LocalClusterEvents(),
      log: silentLogger,
      onChange: (c) => {
        changes.push(c)
      },
      dashboardUrl: 'https://burrow.example/dashboard/tunnels/',
      now: () => clock,
    })
    current = {
      store,
      tunnel,
      changes,
      pins,
      advance: (ms) => {
        clock += ms
      },
      page: async (tools, cursor, nextCursor, mode = 'alert') => {
        const state = await pins.state(tunnel.id)
        const listed: ListPage = { cursor, nextCursor, mode, zeroKnowledge: false }
        const hidden = pins.observe(tunnel, state, tools, listed)
        await pins.settled()
        return [...hidden]
      },
      statuses: async () =>
        Object.fromEntries(
          (await store.toolPins.load(tunnel.id)).pins.map((row) => [row.name, row.status]),
        ),
    }
  })
  afterEach(async () => {
    await current?.pins.settled()
    await current?.store.close()
    await database.drop()
    current = undefined
  })
  return () => {
    if (!current) throw new Error('pagingPins: used outside a test')
    return current
  }
}
