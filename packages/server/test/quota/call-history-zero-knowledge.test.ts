/**
 * Turning zero-knowledge mode on keeps no content, including that of calls which ended before the
 * change and still waited in the history writer's queue: the writer asks the policy in force when
 * it writes; and what a node that missed the change wrote meanwhile is erased a little later (on
 * SQLite always, PostgreSQL when TEST_DATABASE_URL is set).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { Policies } from '../../src/governance/policies.js'
import { CallHistoryWriter, type CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`zero-knowledge mode and the history queue on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'z@example.com', slug: 'zk' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'z' })).tunnel.id
    })
    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const call = (requestBody: string): CallRecord => ({
      tunnelId,
      at: new Date(),
      method: 'tools/call',
      tool: 'lookup',
      status: 200,
      policyCode: null,
      durationMs: 3,
      requestBody,
      responseBody: '{"ok":true}',
    })
    const bodies = () =>
      store.db
        .selectFrom('call_history')
        .select(['request_body', 'response_body'])
        .where('tunnel_id', '=', tunnelId)
        .orderBy('at')
        .execute()

    it('writes no body of a tunnel that turned zero-knowledge while its calls were queued', async () => {
      const policies = new Policies({
        store: store.policies,
        events: new LocalClusterEvents(),
        log: silentLogger,
      })
      const writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      writer.keepContentIf(async (id) => !(await policies.latest(id)).policy.zeroKnowledge)
      writer.record(call('{"before":"kept"}'))
      await writer.flush()
      // A call ended (recorded with its bodies, zero-knowledge still off) ...
      writer.record(call('{"ssn":"078-05-1120"}'))
      // ... and the owner turns zero-knowledge on before the writer's next flush.
      const written = await policies.write(tunnelId, { zero_knowledge: true }, 'owner')
      assert.ok(written.ok)
      await writer.close()
      assert.deepEqual(await bodies(), [
        { request_body: null, response_body: null },
        { request_body: null, response_body: null },
      ])
    })

    it('erases again what a node that missed the change wrote after it', async () => {
      // Two nodes whose cluster events do not reach each other (an event lost while node B
      // reconnected to Redis): B goes on using the policy it cached.
      const nodeA = new Policies({
        store: store.policies,
        events: new LocalClusterEvents(),
        log: silentLogger,
        zeroKnowledgeSweepMs: 300,
      })
      const nodeB = new Policies({
        store: store.policies,
        events: new LocalClusterEvents(),
        log: silentLogger,
        ttlMs: 60_000,
      })
      const writerB = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      writerB.keepContentIf(async (id) => !(await nodeB.latest(id)).policy.zeroKnowledge)
      assert.equal((await nodeB.governance(tunnelId)).policy.zeroKnowledge, false)
      assert.ok((await nodeA.write(tunnelId, { zero_knowledge: true }, 'owner')).ok)
      writerB.record(call('{"ssn":"078-05-1120"}'))
      await writerB.close()
      assert.equal((await bodies())[0]?.request_body, '{"ssn":"078-05-1120"}', 'B kept it')
      // A's second erase, a little after the change.
      for (let waited = 0; (await bodies())[0]?.request_body !== null && waited < 100; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.deepEqual(await bodies(), [{ request_body: null, response_body: null }])
    })
  })
}
