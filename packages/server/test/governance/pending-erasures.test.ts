/**
 * Zero-knowledge mode turned on erases the tunnel's history bodies after the policy's commit, in
 * batches: an erasure cut short (a failure, a restart) leaves the policy in force, is noted as
 * pending and taken up again, and the Traffic views show no body of a zero-knowledge tunnel
 * meanwhile. Real stores: SQLite, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import type { KyselyPlugin } from 'kysely'
import { governancePort } from '../../src/app/governance-services-port.js'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { GovernanceServices } from '../../src/governance/open-governance.js'
import { Policies } from '../../src/governance/policies.js'
import { newCallId } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import { PolicyStore } from '../../src/store/policy-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

/** Every UPDATE of `call_history` fails, as one cut short by a restart would. */
const failingErase: KyselyPlugin = {
  transformQuery(args) {
    if (
      args.node.kind === 'UpdateQueryNode' &&
      JSON.stringify(args.node).includes('call_history')
    ) {
      throw new Error('simulated: the connection went away')
    }
    return args.node
  },
  transformResult: async (args) => args.result,
}

for (const backend of testBackends()) {
  describe(`pending erasures of content on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'z@example.com', slug: 'zk' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'z' })).tunnel.id
      for (let i = 0; i < 12; i++) {
        const at = new Date(Date.parse('2026-02-10T08:00:00.000Z') + i * 1000)
        await store.db
          .insertInto('call_history')
          .values({
            id: newCallId(at),
            tunnel_id: tunnelId,
            at: at.toISOString(),
            method: 'tools/call',
            tool: 'echo',
            status: 200,
            duration_ms: 1,
            outcome: 'ok',
            request_body: `{"secret":${i}}`,
            response_body: '{"result":{}}',
          })
          .execute()
      }
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const bodies = async () =>
      (
        await store.db
          .selectFrom('call_history')
          .select('request_body')
          .where('tunnel_id', '=', tunnelId)
          .where('request_body', 'is not', null)
          .execute()
      ).length

    it('keeps the policy, hides the bodies and takes the erasure up again after a failure', async () => {
      const cut = new PolicyStore(store.db.withPlugin(failingErase))
      const on = await cut.set(tunnelId, '{"zero_knowledge":true}', 'test', new Date(), {
        eraseContent: true,
      })
      assert.equal(on.erased, true)
      assert.match(on.eraseFailed?.message ?? '', /simulated/)
      assert.equal((await store.policies.get(tunnelId))?.document, '{"zero_knowledge":true}')
      assert.equal(await bodies(), 12, 'the erasure was cut short')
      assert.deepEqual(await store.policies.pendingErasures(), [tunnelId])

      // Meanwhile the Traffic tab and the API show no body.
      const port = governancePort(store.db, store.toolPins, {} as GovernanceServices)
      const page = await port.calls(tunnelId, {})
      assert.equal(page.calls.length, 12)
      assert.ok(page.calls.every((c) => c.requestBody === null && c.responseBody === null))
      const one = await port.call(tunnelId, page.calls[0]!.id)
      assert.equal(one?.requestBody, null)

      // A node that starts takes it up.
      const policies = new Policies({
        store: store.policies,
        events: new LocalClusterEvents(),
        log: createLogger('error', () => {}),
      })
      await policies.resumeErasures()
      assert.equal(await bodies(), 0)
      assert.deepEqual(await store.policies.pendingErasures(), [])
    })

    it('erases at once and leaves nothing pending when nothing fails', async () => {
      const port = governancePort(store.db, store.toolPins, {} as GovernanceServices)
      assert.ok((await port.calls(tunnelId, {})).calls.every((c) => c.requestBody !== null))
      const on = await store.policies.set(tunnelId, '{"zero_knowledge":true}', 't', new Date(), {
        eraseContent: true,
      })
      assert.equal(on.eraseFailed, undefined)
      assert.equal(await bodies(), 0)
      assert.deepEqual(await store.policies.pendingErasures(), [])
    })
  })
}
