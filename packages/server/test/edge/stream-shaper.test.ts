/**
 * The shaping of a GET stream's events by the policy as it is when each passes: a changed tool
 * rule, forwarded redaction turned on and off, each event judged by the one policy taken before
 * the chunk that completes it, and an answer of another kind shaped by the policy of its head.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger, type ResponseMessages } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { testExchangeRecord } from '../helpers/test-exchange-record.js'
import { LivePolicy } from '../../src/edge/live-policy.js'
import { streamShaper } from '../../src/edge/stream-shaper.js'
import { Policies } from '../../src/governance/policies.js'
import type { PolicyStore, StoredPolicy } from '../../src/store/policy-store.js'

const TUNNEL = { id: 'tun_stream', accountId: 'acc_1' }
const tool = (name: string, description = `does ${name}`) => ({
  name,
  description,
  inputSchema: { type: 'object' },
})
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
const listing = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { tools: [tool('read_file', 'reads; internal-1234'), tool('delete_all')] },
})

async function stream() {
  let stored: StoredPolicy | undefined
  let version = 0
  const store = { get: async () => stored } as unknown as PolicyStore
  const events = new LocalClusterEvents()
  const policies = new Policies({ store, events, log: createLogger('error', () => {}) })
  const live = new LivePolicy(policies, null, TUNNEL, await policies.governance(TUNNEL.id), null)
  const record = testExchangeRecord({ tunnel: { ...TUNNEL, plan: 'free' } })
  /** The owner writes `document`; the stream takes it as its gate would before the next chunk. */
  const setPolicy = async (document: unknown) => {
    stored = {
      version: ++version,
      document: JSON.stringify(document),
      updatedAt: new Date(0).toISOString(),
      updatedBy: 'test',
    }
    await events.publish({ type: 'tunnel', tunnelId: TUNNEL.id })
    const taken = live.refresh()
    if (taken !== true) await taken
  }
  return { live, record, setPolicy, shape: streamShaper(live, record) }
}

/** The messages of what `shaper` gave to send for `text`. */
function pass(shaper: ResponseMessages, text: string): Record<string, unknown>[] {
  const out = Buffer.concat(shaper.push(Buffer.from(text))).toString()
  return out
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((l) => l.startsWith('data:')))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
}

const names = (m: Record<string, unknown>) =>
  (m.result as { tools: { name: string }[] }).tools.map((t) => t.name)

describe('streamShaper', () => {
  it('applies a tool rule changed while the stream is open to the next event, both ways', async () => {
    const { setPolicy, shape } = await stream()
    const sse = shape('sse')!
    assert.deepEqual(names(pass(sse, event(listing(1)))[0]!), ['read_file', 'delete_all'])
    await setPolicy({ tools: { deny: ['delete_*'] } })
    assert.deepEqual(names(pass(sse, event(listing(2)))[0]!), ['read_file'])
    await setPolicy({})
    assert.deepEqual(names(pass(sse, event(listing(3)))[0]!), ['read_file', 'delete_all'])
  })

  it('masks from the next event once forwarded redaction is on, and stops once it is off', async () => {
    const { setPolicy, shape } = await stream()
    const sse = shape('sse')!
    const redacting = { redaction: { patterns: ['internal-[0-9]{4}'], forwarded: true } }
    assert.match(JSON.stringify(pass(sse, event(listing(1)))), /internal-1234/)
    await setPolicy(redacting)
    assert.doesNotMatch(JSON.stringify(pass(sse, event(listing(2)))), /internal-1234/)
    await setPolicy({})
    assert.match(JSON.stringify(pass(sse, event(listing(3)))), /internal-1234/)
  })

  it('judges an event split across chunks by the policy taken before the chunk ending it', async () => {
    const { setPolicy, shape } = await stream()
    const sse = shape('sse')!
    const text = event(listing(1))
    const half = Math.floor(text.length / 2)
    assert.deepEqual(pass(sse, text.slice(0, half)), [], 'nothing of an event goes unchecked')
    await setPolicy({
      tools: { deny: ['delete_*'] },
      redaction: { patterns: ['internal-[0-9]{4}'], forwarded: true },
    })
    const [m] = pass(sse, text.slice(half))
    assert.deepEqual(names(m!), ['read_file'])
    assert.doesNotMatch(JSON.stringify(m), /internal-1234/, 'one policy for the whole event')
  })

  it('shapes an answer of another kind by the policy its head came under', async () => {
    const { live, setPolicy, shape } = await stream()
    await setPolicy({ tools: { deny: ['delete_*'] } })
    assert.equal(live.governance.version, 1)
    const json = shape('json')
    assert.ok(json !== null, 'a JSON answer is read while listings are filtered')
    const out = Buffer.concat([
      ...json.push(Buffer.from(JSON.stringify(listing(4)))),
      ...json.end(),
    ]).toString()
    assert.deepEqual(names(JSON.parse(out) as Record<string, unknown>), ['read_file'])
  })

  it('keeps every event, in order, through a hundred policy changes (hostile)', async () => {
    const { setPolicy, shape } = await stream()
    const sse = shape('sse')!
    const seen: Record<string, unknown>[] = []
    for (let i = 0; i < 100; i++) {
      await setPolicy(i % 2 === 0 ? { tools: { deny: ['delete_*'] } } : {})
      seen.push(...pass(sse, event(listing(i))))
      assert.deepEqual(names(seen[i]!), i % 2 === 0 ? ['read_file'] : ['read_file', 'delete_all'])
    }
    assert.deepEqual(
      seen.map((m) => m.id),
      Array.from({ length: 100 }, (_, i) => i),
    )
  })
})
