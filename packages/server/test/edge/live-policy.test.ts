/**
 * The policy a GET stream applies: the policies' cached copy taken at once, read again (once,
 * shared) when a change dropped it or its few seconds passed, the same version read again
 * counted as no change, and a read that fails said so.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { LivePolicy } from '../../src/edge/live-policy.js'
import { Policies } from '../../src/governance/policies.js'
import type { PolicyStore, StoredPolicy } from '../../src/store/policy-store.js'

const TUNNEL = { id: 'tun_live', accountId: 'acc_1' }

/** A store holding one tunnel's policy document, counting reads; `fail` makes reads fail. */
function policyStore() {
  const state = {
    reads: 0,
    fail: false,
    stored: undefined as StoredPolicy | undefined,
    set(version: number, document: unknown) {
      state.stored = {
        version,
        document: JSON.stringify(document),
        updatedAt: new Date(0).toISOString(),
        updatedBy: 'test',
      }
    },
  }
  const store = {
    get: async () => {
      state.reads++
      if (state.fail) throw new Error('the database is away')
      return state.stored
    },
  } as unknown as PolicyStore
  return { state, store }
}

async function opened(ttlMs = 5000) {
  let now = 1_000_000
  const { state, store } = policyStore()
  const events = new LocalClusterEvents()
  const policies = new Policies({
    store,
    events,
    log: createLogger('error', () => {}),
    ttlMs,
    now: () => now,
  })
  const governance = await policies.governance(TUNNEL.id)
  const live = new LivePolicy(policies, null, TUNNEL, governance, null)
  const change = async (version: number, document: unknown) => {
    state.set(version, document)
    await events.publish({ type: 'tunnel', tunnelId: TUNNEL.id })
  }
  return { state, live, change, tick: (ms: number) => void (now += ms) }
}

describe('LivePolicy', () => {
  it('takes the cached policy at once, without reading it again', async () => {
    const { state, live } = await opened()
    for (let i = 0; i < 100; i++) assert.equal(live.refresh(), true)
    assert.equal(state.reads, 1, 'one read, at the request')
    assert.equal(live.changes, 0)
  })

  it('reads a changed policy once and applies it from then on', async () => {
    const { state, live, change } = await opened()
    await change(1, { tools: { deny: ['delete_*'] } })
    const waiting = live.refresh()
    assert.notEqual(waiting, true, 'the change dropped the cached copy')
    await waiting
    assert.equal(live.governance.version, 1)
    assert.equal(live.governance.tools.allows('delete_all'), false)
    assert.equal(live.changes, 1)
    assert.equal(live.refresh(), true)
    assert.equal(state.reads, 2)
  })

  it('counts the same version read again after the cache expired as no change', async () => {
    const { live, tick } = await opened(5000)
    const before = live.governance
    tick(6000)
    const waiting = live.refresh()
    assert.notEqual(waiting, true)
    await waiting
    assert.equal(live.changes, 0)
    assert.equal(live.governance, before, 'the compiled policy in use is kept')
  })

  it('says so when the policy cannot be read, and keeps what it had', async () => {
    const { state, live, change } = await opened()
    state.fail = true
    await change(1, { tools: { deny: ['*'] } })
    const waiting = live.refresh()
    assert.notEqual(waiting, true)
    await assert.rejects(waiting as Promise<void>, /the database is away/)
    assert.equal(live.governance.version, 0)
  })

  it('takes the newest of many changes made while it waited (hostile)', async () => {
    const { state, live, change } = await opened()
    const waits: Promise<void>[] = []
    for (let v = 1; v <= 50; v++) {
      await change(v, { tools: { deny: [`tool_${v}`] } })
      const waiting = live.refresh()
      if (waiting !== true) waits.push(waiting)
    }
    await Promise.all(waits)
    const last = live.refresh()
    if (last !== true) await last
    assert.equal(live.governance.version, 50)
    assert.equal(live.governance.tools.allows('tool_50'), false)
    assert.equal(live.governance.tools.allows('tool_49'), true)
    assert.ok(state.reads <= 52, `${state.reads} reads for 50 changes`)
  })
})
