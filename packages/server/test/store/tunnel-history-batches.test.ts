/**
 * One tunnel's call history erased (zero-knowledge turned on) or deleted (the tunnel deleted) in
 * statements of a bounded number of rows, never touching another tunnel's; and the store's
 * policy change and tunnel deletion use them. Real stores: SQLite, and PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { newCallId } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { deleteHistory, eraseHistoryBodies } from '../../src/store/tunnel-history-batches.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const BASE = Date.parse('2026-02-10T08:00:00.000Z')

for (const backend of testBackends()) {
  describe(`a tunnel's history in batches on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let accountId: string
    let tunnelId: string
    let otherId: string

    /** `n` calls of `tunnel`, with bodies unless `bare`. */
    async function calls(tunnel: string, n: number, bare = false): Promise<void> {
      for (let i = 0; i < n; i++) {
        const at = new Date(BASE + i * 1000)
        await store.db
          .insertInto('call_history')
          .values({
            id: newCallId(at),
            tunnel_id: tunnel,
            at: at.toISOString(),
            method: 'tools/call',
            tool: 'echo',
            status: 200,
            duration_ms: 1,
            outcome: 'ok',
            request_body: bare ? null : `{"secret":${i}}`,
            response_body: bare ? null : '{"result":{}}',
          })
          .execute()
      }
    }

    const rows = async (tunnel: string) =>
      store.db
        .selectFrom('call_history')
        .select(['request_body', 'response_body'])
        .where('tunnel_id', '=', tunnel)
        .execute()

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      accountId = (await store.createAccount({ email: 'h@example.com', slug: 'hist' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'h' })).tunnel.id
      otherId = (await store.createTunnel({ accountId, name: 'o' })).tunnel.id
      await calls(tunnelId, 23)
      await calls(tunnelId, 4, true)
      await calls(otherId, 5)
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('erases the bodies of one tunnel only, batch after batch', async () => {
      assert.equal(await eraseHistoryBodies(store.db, tunnelId, 5), 23)
      const mine = await rows(tunnelId)
      assert.equal(mine.length, 27)
      assert.ok(mine.every((r) => r.request_body === null && r.response_body === null))
      assert.ok((await rows(otherId)).every((r) => r.request_body !== null))
      assert.equal(await eraseHistoryBodies(store.db, tunnelId, 5), 0, 'nothing left')
    })

    it('deletes the history of one tunnel only, batch after batch', async () => {
      assert.equal(await deleteHistory(store.db, tunnelId, 4), 27)
      assert.equal((await rows(tunnelId)).length, 0)
      assert.equal((await rows(otherId)).length, 5)
    })

    it('erases the bodies when the policy turns zero-knowledge on, and deletes them with the tunnel', async () => {
      const on = await store.policies.set(tunnelId, '{"zero_knowledge":true}', 'test', new Date(), {
        eraseContent: true,
      })
      assert.equal(on.erased, true)
      assert.ok((await rows(tunnelId)).every((r) => r.request_body === null))
      await assert.rejects(store.deleteTunnel('acc_someone_else', otherId), /does not exist/)
      assert.equal((await rows(otherId)).length, 5, "another account's delete deletes nothing")
      await store.deleteTunnel(accountId, tunnelId)
      assert.equal((await rows(tunnelId)).length, 0)
      assert.equal((await rows(otherId)).length, 5)
    })
  })
}
