/**
 * A policy write made from the version it was edited from, on SQLite always and PostgreSQL when
 * TEST_DATABASE_URL is set: refused, nothing written, when the policy changed since (a tab opened
 * before zero-knowledge mode was turned on elsewhere, saved later, turned it off again unseen);
 * and of two writes made from the same version at once, exactly one lands. Found by a hostile
 * review: every save replaced the document whole, whatever had been written meanwhile.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { Policies } from '../../src/governance/policies.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`policy writes from a version on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    let policies: Policies

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'v@example.com', slug: 'versions' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'v' })).tunnel.id
      policies = new Policies({
        store: store.policies,
        events: new LocalClusterEvents(),
        log: createLogger('error', () => {}),
      })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('refuses a document edited from an older version and keeps the newer one', async () => {
      // Two tabs read version 0; one turns zero-knowledge mode on.
      const on = await policies.write(tunnelId, { zero_knowledge: true }, 'tab one', 0)
      assert.ok(on.ok)
      assert.equal(on.view.version, 1)
      // The other saves what it was showing, with a deny rule added.
      const stale = await policies.write(tunnelId, { tools: { deny: ['drop_*'] } }, 'tab two', 0)
      assert.equal(stale.ok, false)
      assert.ok(!stale.ok)
      assert.deepEqual(stale.changedSince, { version: 1 })
      assert.match(stale.problem.message, /changed since version 0 \(it is at version 1\)/)
      const now = await policies.read(tunnelId)
      assert.equal(now.version, 1)
      assert.equal(now.document.zero_knowledge, true)
      assert.equal((await policies.versions(tunnelId)).length, 1)
      // Made from the version it is at, the write lands.
      const again = await policies.write(
        tunnelId,
        { zero_knowledge: true, tools: { deny: ['drop_*'] } },
        'tab two',
        1,
      )
      assert.ok(again.ok)
      assert.equal(again.view.version, 2)
      // Without a version (the API without If-Match), as before: the document replaces.
      assert.ok((await policies.write(tunnelId, {}, 'script')).ok)
      assert.equal((await policies.read(tunnelId)).version, 3)
    })

    it('lets one of two writes made from the same version at once land', async () => {
      assert.ok((await policies.write(tunnelId, {}, 'first', 0)).ok)
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          policies.write(tunnelId, { tools: { deny: [`tool_${i}`] } }, `writer ${i}`, 1),
        ),
      )
      const landed = results.filter((r) => r.ok)
      assert.equal(landed.length, 1, 'exactly one write from version 1 lands')
      for (const r of results) if (!r.ok) assert.deepEqual(r.changedSince, { version: 2 })
      const now = await policies.read(tunnelId)
      assert.equal(now.version, 2)
      assert.ok(landed[0]!.ok)
      assert.deepEqual(now.document.tools, landed[0]!.view.document.tools)
    })
  })
}
