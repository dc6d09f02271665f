/**
 * The live tail shows no body of a tunnel whose stored policy is zero-knowledge, whatever the
 * node's cached policy said when the call was recorded: two nodes on one database, the second not
 * (yet) told of the first's change (its cluster event in flight, or lost while it reconnected to
 * Redis). Found by a hostile review: the tail handed such calls' bodies to the page while every
 * other Traffic view hid them. Real stores: SQLite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { loadConfig } from '../../src/config.js'
import type { TailEvent } from '../../src/governance/live-tail.js'
import { openGovernance, type GovernanceServices } from '../../src/governance/open-governance.js'
import { newCallId, type CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const rugPull = {
  dashboardUrl: 'http://127.0.0.1/dashboard/tunnels/',
  onToolChange: async () => {},
}

/** A call as the edge records it under a policy that keeps content. */
const callOf = (tunnelId: string, secret: string): CallRecord => {
  const at = new Date()
  return {
    id: newCallId(at),
    tunnelId,
    at,
    method: 'tools/call',
    tool: 'echo',
    status: 200,
    policyCode: null,
    durationMs: 1,
    requestBody: JSON.stringify({ params: { arguments: { note: secret } } }),
    responseBody: JSON.stringify({ result: { note: secret } }),
  }
}

/** The calls a watcher received, once `count` of them came. */
function watcherOf(node: GovernanceServices, tunnelId: string) {
  const events: TailEvent[] = []
  let wake = () => {}
  node.tail.watch(tunnelId, {
    send(event) {
      events.push(event)
      wake()
      return true
    },
  })
  return async (count: number): Promise<CallRecord[]> => {
    const calls = () => events.flatMap((e) => (e.type === 'call' ? [e.call] : []))
    while (calls().length < count) await new Promise<void>((resolve) => (wake = resolve))
    return calls()
  }
}

for (const backend of testBackends()) {
  describe(`the live tail of a zero-knowledge tunnel on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let nodes: GovernanceServices[]
    let tunnelId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'z@example.com', slug: 'zk' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'z' })).tunnel.id
      // Without Redis each node's events stay its own: B never hears what A changes.
      const config = loadConfig({ BURROW_DATA_DIR: database.config.dataDir })
      nodes = []
      for (const id of ['node_a', 'node_b']) {
        const history = { record: () => {} }
        nodes.push(await openGovernance(config, store, history, silentLogger, id, rugPull))
      }
    })

    afterEach(async () => {
      for (const node of nodes) await node.close()
      await store.close()
      await database.drop()
    })

    it('shows bodies while the mode is off, and none once it is stored as on', async () => {
      const [a, b] = nodes as [GovernanceServices, GovernanceServices]
      const received = watcherOf(b, tunnelId)
      // B has the policy cached as it was: content kept.
      assert.equal((await b.policies.governance(tunnelId)).policy.zeroKnowledge, false)
      b.history.record(callOf(tunnelId, 'before'))
      const [before] = await received(1)
      assert.match(before!.requestBody ?? '', /before/, 'bodies are shown while the mode is off')

      const written = await a.policies.write(tunnelId, { zero_knowledge: true }, 'owner')
      assert.ok(written.ok)
      // B has not heard: the call it records still carries what its cached policy kept.
      assert.equal(b.policies.cachedGovernance(tunnelId)?.policy.zeroKnowledge, false)
      b.history.record(callOf(tunnelId, 'after'))
      const [, after] = await received(2)
      assert.equal(after!.requestBody ?? null, null, 'a request body went to the page')
      assert.equal(after!.responseBody ?? null, null, 'a response body went to the page')
      assert.equal(after!.tool, 'echo', 'what the mode shows is still shown')
    })
  })
}
