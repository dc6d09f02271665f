/**
 * What the edge reads of a `tools/list` exchange it pins or filters, through its answer shaping
 * with rug-pull pins over SQLite: an empty `nextCursor` ends the list (an agent reads it so, and
 * stops paging: before, the edge waited for a next page that never came, so a renamed tool was
 * never judged and passed `alert` mode with no alert, and a removal was never told), an empty
 * `cursor` asks for a first page, and a `ttlMs` the answer carries is set to 0 (MCP 2026-07-28
 * caching: before, it passed as sent, and a client kept a definition its owner then rejected
 * for as long as the server said).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { readJsonRpcBody, isBodyProblem, silentLogger, type JsonRpcBody } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { answerShaper, type RugPull } from '../../src/edge/govern-request.js'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { nextCursorOf, requestedCursor, withoutLongCaching } from '../../src/edge/listing-fields.js'
import { isPolicyProblem, parsePolicy } from '../../src/governance/parse-policy.js'
import type { RugPullMode } from '../../src/governance/policy.js'
import { ToolPins, type ToolChange } from '../../src/governance/tool-pins.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})

function rpc(message: unknown): JsonRpcBody {
  const read = readJsonRpcBody(Buffer.from(JSON.stringify(message)))
  assert.ok(!isBodyProblem(read), JSON.stringify(read))
  return read
}

describe('listing fields', () => {
  it('reads an empty cursor as none, in a request and in an answer', () => {
    const request = (params: unknown) => ({ kind: 'request', value: { params } }) as const
    assert.equal(requestedCursor(request({ cursor: '' })), null)
    assert.equal(requestedCursor(request({ cursor: 'p2' })), 'p2')
    assert.equal(requestedCursor(request({ cursor: 7 })), null)
    assert.equal(requestedCursor(request(undefined)), null)
    assert.equal(nextCursorOf({ result: { tools: [], nextCursor: '' } }), null)
    assert.equal(nextCursorOf({ result: { tools: [], nextCursor: 'p2' } }), 'p2')
    assert.equal(nextCursorOf({ result: { tools: [] } }), null)
  })

  it('sets a ttlMs an answer carries to 0, and leaves the rest of it as it was', () => {
    const answer = { id: 1, result: { tools: [], ttlMs: 86_400_000, cacheScope: 'public' } }
    assert.deepEqual(withoutLongCaching(answer), {
      id: 1,
      result: { tools: [], ttlMs: 0, cacheScope: 'public' },
    })
    for (const ttlMs of [-1, '60000', null, 1.5]) {
      const odd = { id: 1, result: { tools: [], ttlMs } }
      assert.deepEqual(withoutLongCaching(odd), { id: 1, result: { tools: [], ttlMs: 0 } })
    }
    // Nothing to bound: the same object back.
    const none = { id: 1, result: { tools: [] } }
    assert.equal(withoutLongCaching(none), none)
    const zero = { id: 1, result: { tools: [], ttlMs: 0 } }
    assert.equal(withoutLongCaching(zero), zero)
    const error = { id: 1, error: { code: -32603, message: 'x' } }
    assert.equal(withoutLongCaching(error), error)
  })
})

describe('tools/list answers the edge pins', () => {
  let database: TestDatabase
  let store: Store
  let pins: ToolPins
  let tunnel: { id: string; accountId: string }
  let changes: ToolChange[]

  /** The answer `result` to a tools/list asked with `cursor`, as the agent gets it. */
  async function listThrough(
    result: Record<string, unknown>,
    cursor?: string,
    mode: RugPullMode = 'alert',
    policy: unknown = { rug_pull: { mode } },
  ): Promise<Record<string, unknown>> {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
    const body = rpc(cursor === undefined ? request : { ...request, params: { cursor } })
    const parsed = parsePolicy(policy)
    assert.ok(!isPolicyProblem(parsed))
    const governance = new TunnelGovernance(tunnel.id, 1, parsed)
    const rug: RugPull | null =
      mode === 'off'
        ? null
        : { pins, tunnel, mode, zeroKnowledge: false, state: await pins.state(tunnel.id) }
    const exchange = new ExchangeRecord({
      tunnel: { ...tunnel, plan: 'free' },
      method: 'POST',
      body,
      sessionId: undefined,
      history: null,
      sessions: null,
      arrivedAt: new Date(),
      started: performance.now(),
    })
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result })
    const messages = answerShaper(governance, body, exchange, rug)?.('json')
    if (messages === null || messages === undefined) return result
    const out = Buffer.concat([...messages.push(Buffer.from(answer)), ...messages.end()])
    await pins.settled()
    return (JSON.parse(out.toString()) as { result: Record<string, unknown> }).result
  }

  const names = (result: Record<string, unknown>) =>
    (result.tools as { name: string }[]).map((t) => t.name)

  beforeEach(async () => {
    const sqlite = testBackends().find((b) => b.name === 'sqlite')!
    database = await sqlite.create()
    store = await openStore(database.config)
    const account = await store.createAccount({ email: 'l@example.com', slug: 'lists' })
    const created = await store.createTunnel({ accountId: account.id, name: 'l' })
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

  it('an empty nextCursor ends the list: a rename on it is judged at once', async () => {
    await listThrough({ tools: [tool('read', 'reads'), tool('b')], nextCursor: '' })
    assert.equal(changes.length, 0, 'the first list is the baseline')
    // The server renames `read` on a page whose nextCursor is "", where agents stop paging.
    const shown = await listThrough({ tools: [tool('wipe', 'reads'), tool('b')], nextCursor: '' })
    assert.deepEqual(names(shown), ['wipe', 'b'], 'alert mode passes it')
    assert.deepEqual(
      changes.map((c) => [c.tool, c.change, c.renamedFrom]),
      [['wipe', 'renamed', 'read']],
    )
    const stored = (await store.toolPins.load(tunnel.id)).pins.map((p) => [p.name, p.status])
    assert.deepEqual(stored, [
      ['b', 'approved'],
      ['read', 'removed'],
      ['wipe', 'renamed'],
    ])
    const state = await pins.state(tunnel.id)
    assert.equal(state.baselining, false, 'no baseline waits for a page no agent asks for')
    assert.equal(state.rounds.size, 0, 'no list waits for one either')
  })

  it('an empty cursor asks for a first page', async () => {
    await listThrough({ tools: [tool('a')] }, '')
    assert.deepEqual(
      (await store.toolPins.load(tunnel.id)).pins.map((p) => [p.name, p.status]),
      [['a', 'approved']],
      'taken as the baseline',
    )
    await listThrough({ tools: [tool('b')] }, '')
    assert.deepEqual(changes.map((c) => [c.tool, c.change]).sort(), [
      ['a', 'removed'],
      ['b', 'new'],
    ])
  })

  it('sets the ttlMs of a listing it pins or filters to 0, in either mode', async () => {
    const listing = { tools: [tool('a')], ttlMs: 3_600_000, cacheScope: 'private' }
    for (const mode of ['alert', 'hold'] as const) {
      assert.deepEqual(await listThrough(listing, undefined, mode), { ...listing, ttlMs: 0 })
    }
    const policy = { rug_pull: { mode: 'off' }, tools: { deny: ['x'] } }
    const filtered = await listThrough(
      { ...listing, tools: [tool('a'), tool('x')] },
      'c',
      'off',
      policy,
    )
    assert.deepEqual(filtered, { ...listing, ttlMs: 0 })
    // Each page of a paginated list too.
    await listThrough({ tools: [tool('a', 'bad')], ttlMs: 60_000, nextCursor: 'p2' })
    const page = await listThrough({ tools: [tool('z')], ttlMs: 60_000 }, 'p2')
    assert.equal(page.ttlMs, 0)
    // A listing a GET stream carries (or replays) too.
    const state = await pins.state(tunnel.id)
    const rug: RugPull = { pins, tunnel, mode: 'alert', zeroKnowledge: false, state }
    const parsed = parsePolicy({})
    assert.ok(!isPolicyProblem(parsed))
    const exchange = new ExchangeRecord({
      tunnel: { ...tunnel, plan: 'free' },
      method: 'GET',
      body: null,
      sessionId: undefined,
      history: null,
      sessions: null,
      arrivedAt: new Date(),
      started: performance.now(),
    })
    const stream = answerShaper(new TunnelGovernance(tunnel.id, 1, parsed), null, exchange, rug)
    const messages = stream!('sse')!
    const event = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 9, result: listing })}\n\n`
    const out = Buffer.concat([...messages.push(Buffer.from(event)), ...messages.end()])
    const replayed = JSON.parse(out.toString().replace(/^data: /, '')) as { result: object }
    assert.deepEqual(replayed.result, { ...listing, ttlMs: 0 })
    // Nothing pinned nor filtered: the answer is not rewritten at all.
    const untouched = await listThrough(listing, undefined, 'off', { rug_pull: { mode: 'off' } })
    assert.deepEqual(untouched, listing)
  })
})
