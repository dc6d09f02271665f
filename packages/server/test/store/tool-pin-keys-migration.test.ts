/**
 * Migration 029 on both databases: pins and decisions stored under a tool's name as listed, when
 * that name holds a secret, are stored under its key (governance/pin-key.ts); other names stay,
 * and a key already pinned in the tunnel keeps its row.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { pinKeyOf } from '../../src/governance/pin-key.js'
import { toolPinKeysMigration } from '../../src/store/migrations/029-tool-pin-keys.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const SECRET = `ghp_${'A1b2C3d4E5'.repeat(4)}`
const def = (hash: string) => ({ hash, bodyHash: `${hash}-body`, definition: null })

for (const backend of testBackends()) {
  describe(`migration 029 on ${backend.name}`, () => {
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

    it('stores pins and decisions of names holding a secret under their keys', async () => {
      const at = new Date('2026-05-06T07:08:09.000Z')
      const secretName = `use-${SECRET}`
      const masked = 'x[REDACTED:pattern]'
      // As an earlier burrowd stored them: under the names as listed.
      await store.toolPins.baseline(
        tunnelId,
        [
          { name: 'read', ...def('r') },
          // Kept with the name as listed (the tunnel's redaction off).
          {
            name: secretName,
            ...def('s'),
            definition: JSON.stringify({ description: 'runs it', name: secretName }),
          },
          // A name holding a mask as listed: keyed apart from a masked one.
          { name: masked, ...def('m') },
        ],
        at,
      )
      await store.db
        .updateTable('tool_pins')
        .set({ status: 'renamed', renamed_from: secretName })
        .where('name', '=', 'read')
        .execute()
      await store.toolPins.decide(tunnelId, secretName, 'approved', 'owner', at)
      const before = await store.db.selectFrom('tool_approvals').select('name').execute()

      await toolPinKeysMigration.up(store.db)

      const pins = await store.db
        .selectFrom('tool_pins')
        .select(['name', 'renamed_from', 'approved_hash', 'approved_definition'])
        .orderBy('name')
        .execute()
      assert.deepEqual(
        pins.map((p) => [p.name, p.renamed_from, p.approved_hash]),
        [
          [pinKeyOf(masked), null, 'm'],
          ['read', pinKeyOf(secretName), 'r'],
          [pinKeyOf(secretName), null, 's'],
        ].sort((a, b) => String(a[0]).localeCompare(String(b[0]), 'en')),
      )
      const kept = pins.find((p) => p.name === pinKeyOf(secretName))?.approved_definition
      assert.deepEqual(JSON.parse(kept!), { description: 'runs it', name: pinKeyOf(secretName) })
      const after = await store.db.selectFrom('tool_approvals').select('name').execute()
      assert.equal(after.length, before.length)
      const everything = JSON.stringify({ pins, after })
      assert.ok(!everything.includes(SECRET), everything)
    })
  })
}
