/**
 * Migration 021 on both databases: an address stored in another spelling of its mailbox is
 * rewritten to the one spelling sign-in now looks up, unless another account has that spelling.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { canonicalEmailsMigration } from '../../src/store/migrations/021-canonical-emails.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const FULL_WIDTH = 'bob@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com'

for (const backend of testBackends()) {
  describe(`migration 021 on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const stored = async (id: string) =>
      (
        await store.db
          .selectFrom('accounts')
          .select('email')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).email

    it('rewrites an address to its one spelling, and leaves one whose spelling is taken', async () => {
      const a = await store.createAccount({ email: 'a@example.org', slug: 'aaa' })
      const b = await store.createAccount({ email: 'b@example.org', slug: 'bbb' })
      const c = await store.createAccount({ email: 'c@example.org', slug: 'ccc' })
      // As an earlier burrowd stored them.
      await store.db
        .updateTable('accounts')
        .set({ email: FULL_WIDTH })
        .where('id', '=', a.id)
        .execute()
      await store.db
        .updateTable('accounts')
        .set({ email: 'carol@xn--bcher-kva.de' })
        .where('id', '=', b.id)
        .execute()
      await store.db
        .updateTable('accounts')
        .set({ email: 'carol@b\u00fccher.de' })
        .where('id', '=', c.id)
        .execute()
      // A verification link mailed before names the address as it was.
      await store.db
        .insertInto('account_tokens')
        .values({
          token_hash: 'h',
          account_id: a.id,
          purpose: 'verify',
          email: FULL_WIDTH,
          created_at: new Date().toISOString(),
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        })
        .execute()
      await canonicalEmailsMigration.up(store.db)
      const token = await store.db
        .selectFrom('account_tokens')
        .select('email')
        .where('token_hash', '=', 'h')
        .executeTakeFirstOrThrow()
      assert.equal(token.email, 'bob@example.com', 'the link still confirms the same address')
      assert.equal(await stored(a.id), 'bob@example.com')
      assert.equal(await stored(b.id), 'carol@xn--bcher-kva.de', 'c has that mailbox already')
      assert.equal(await stored(c.id), 'carol@b\u00fccher.de')
      assert.equal((await store.accountTokens.accountByEmail(FULL_WIDTH))?.accountId, a.id)
    })
  })
}
