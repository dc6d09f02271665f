/**
 * Which deleted tunnel a new one carries on (`released-tunnels.ts`), on both databases: the
 * account's tunnel deleted last this month, each taken once, and none of an earlier month.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`released tunnels on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number
    let accountId: string

    beforeEach(async () => {
      clock = Date.parse('2026-03-31T23:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config, { now: () => new Date(clock) })
      accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme', plan: 'pro' }))
        .id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const create = async (name: string) =>
      store.createTunnelWithinPlan({ accountId, name, subdomain: name })

    it('carries on the tunnel deleted last this month, each once', async () => {
      const a = await create('a')
      const b = await create('b')
      assert.equal(a.carriesOn, null)
      assert.equal(b.carriesOn, null)
      await store.deleteTunnel(accountId, a.tunnel.id)
      clock += 1000
      await store.deleteTunnel(accountId, b.tunnel.id)
      assert.equal((await create('c')).carriesOn, b.tunnel.id)
      assert.equal((await create('d')).carriesOn, a.tunnel.id)
      assert.equal((await create('e')).carriesOn, null)
    })

    it('gives the deleted tunnel back when a creation carrying it on is undone', async () => {
      // The counters could not be copied (Redis away): no tunnel, and nothing lost.
      const a = await create('a')
      await store.deleteTunnel(accountId, a.tunnel.id)
      const b = await create('b')
      assert.equal(b.carriesOn, a.tunnel.id)
      await store.undoCreateCarryingOn(accountId, b.tunnel.id, a.tunnel.id)
      assert.equal(await store.getTunnel(accountId, b.tunnel.id), undefined)
      assert.equal((await create('b')).carriesOn, a.tunnel.id)
    })

    it("carries nothing of last month's deletions", async () => {
      const a = await create('a')
      await store.deleteTunnel(accountId, a.tunnel.id)
      clock += 2 * 60 * 60_000 // April
      assert.equal((await create('b')).carriesOn, null)
    })

    it('over its plan, a deleted serving tunnel is carried on by the stopped one serving in its place', async () => {
      const made = []
      for (const name of ['a', 'b', 'c', 'd']) {
        made.push(await create(name))
        clock += 1000 // served oldest first
      }
      const [a, b, c, d] = made.map((m) => m.tunnel.id) as [string, string, string, string]
      // Free serves two: a and b.
      const plan = (id: string) =>
        store.db.updateTable('accounts').set({ plan: id }).where('id', '=', accountId).execute()
      await plan('free')
      const serving = async () =>
        (await store.listTunnels(accountId)).filter((t) => t.serving).map((t) => t.id)
      assert.deepEqual(await serving(), [a, b])
      // A stopped tunnel deleted frees no place: its month waits for the next new tunnel.
      assert.equal((await store.deleteTunnel(accountId, d)).startedServing, null)
      // A serving one deleted: c serves in its place and carries its month on, not a new tunnel.
      assert.equal((await store.deleteTunnel(accountId, a)).startedServing, c)
      assert.deepEqual(await serving(), [b, c])
      await plan('pro')
      assert.equal((await create('e')).carriesOn, d)
      assert.equal((await create('f')).carriesOn, null)
      // Given back when c could not be given it.
      await store.releaseDeletedTunnel(accountId, a)
      assert.equal((await create('g')).carriesOn, a)
    })

    it('carries nothing across accounts', async () => {
      const other = await store.createAccount({ email: 'b@example.com', slug: 'other' })
      const theirs = await store.createTunnelWithinPlan({ accountId: other.id, name: 'x' })
      await store.deleteTunnel(other.id, theirs.tunnel.id)
      assert.equal((await create('a')).carriesOn, null)
    })
  })
}
