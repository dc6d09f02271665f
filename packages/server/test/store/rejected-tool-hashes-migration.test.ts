/**
 * Migration 034 on both databases: a tool rejected before it remembers its current definition
 * (in the form it was pinned in) as rejected, and other tools remember none.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { rejectedToolHashesMigration } from '../../src/store/migrations/034-rejected-tool-hashes.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const def = (hash: string) => ({ hash, bodyHash: `${hash}-body`, definition: null })

for (const backend of testBackends()) {
  describe(`migration 034 on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'tools' })).tunnel.id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('remembers the current definition of a tool rejected before', async () => {
      const at = new Date('2026-05-06T07:08:09.000Z')
      const pins = store.toolPins
      const tools = ['a', 'b', 'c'].map((name) => ({ name, ...def(`${name}1`) }))
      await pins.baseline(tunnelId, tools, at)
      await pins.recordSeen(tunnelId, 'a', 'changed', def('a2'), at)
      // Pinned in the form before 027.
      await pins.recordSeen(tunnelId, 'b', 'changed', { ...def('b2'), form: 1 }, at)
      await pins.recordSeen(tunnelId, 'c', 'changed', def('c2'), at)
      await pins.decide(tunnelId, 'a', 'rejected', 'owner', at)
      await pins.decide(tunnelId, 'b', 'rejected', 'owner', at)
      // As an earlier burrowd stored them: the status alone said so.
      await rejectedToolHashesMigration.down!(store.db)
      await rejectedToolHashesMigration.up(store.db)
      const rows = (await pins.load(tunnelId)).pins
      assert.deepEqual(
        rows.map((r) => [r.name, r.rejected]),
        [
          ['a', [{ hash: 'a2', form: 2 }]],
          ['b', [{ hash: 'b2', form: 1 }]],
          ['c', []],
        ],
      )
    })
  })
}
