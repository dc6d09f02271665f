/**
 * Mailed reset and verification tokens on every backend: stored only as hashes, single-use even
 * under concurrent use, expiring, voided by a newer token of the same purpose (all but the newest
 * few live ones when asked to keep some), and never found
 * from malformed input; verified addresses follow the account's current email.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { RESET_TOKEN_TTL_MS } from '../../src/store/account-token-store.js'
import { openStore } from '../../src/store/open-store.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`AccountTokenStore on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number
    let account: Account

    beforeEach(async () => {
      database = await backend.create()
      clock = Date.parse('2026-03-01T10:00:00Z')
      store = await openStore(database.config, { now: () => new Date(clock) })
      account = await store.createAccount({ email: 'Owner@Example.com', slug: 'owner' })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('keeps only the hash, finds a live token without using it, and uses it once', async () => {
      const secret = await store.accountTokens.issue(account.id, 'reset', account.email, 60_000)
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/)
      const rows = await store.db.selectFrom('account_tokens').selectAll().execute()
      assert.equal(rows.length, 1)
      assert.equal(rows[0]!.token_hash, createHash('sha256').update(secret).digest('hex'))
      assert.ok(!JSON.stringify(rows).includes(secret), 'the secret is stored')

      const holder = { accountId: account.id, email: 'owner@example.com' }
      assert.deepEqual(await store.accountTokens.find(secret, 'reset'), holder)
      assert.equal(await store.accountTokens.find(secret, 'verify'), undefined, 'wrong purpose')
      assert.equal(await store.accountTokens.use(secret, 'verify'), undefined, 'wrong purpose')
      assert.deepEqual(await store.accountTokens.use(secret, 'reset'), holder)
      assert.equal(await store.accountTokens.use(secret, 'reset'), undefined, 'used twice')
      assert.equal(await store.accountTokens.find(secret, 'reset'), undefined)
    })

    it('lets exactly one of many concurrent uses succeed', async () => {
      const secret = await store.accountTokens.issue(account.id, 'reset', account.email, 60_000)
      const uses = await Promise.all(
        Array.from({ length: 12 }, () => store.accountTokens.use(secret, 'reset')),
      )
      assert.equal(uses.filter((u) => u !== undefined).length, 1)
    })

    it('expires tokens, and voids older ones when a new one is issued', async () => {
      const first = await store.accountTokens.issue(account.id, 'reset', account.email, 1000)
      clock += 1000
      assert.equal(await store.accountTokens.use(first, 'reset'), undefined, 'expired')
      const second = await store.accountTokens.issue(
        account.id,
        'reset',
        account.email,
        RESET_TOKEN_TTL_MS,
      )
      const third = await store.accountTokens.issue(
        account.id,
        'reset',
        account.email,
        RESET_TOKEN_TTL_MS,
      )
      const verify = await store.accountTokens.issue(account.id, 'verify', account.email, 60_000)
      assert.equal(await store.accountTokens.find(second, 'reset'), undefined, 'voided')
      assert.ok(await store.accountTokens.find(third, 'reset'))
      assert.ok(await store.accountTokens.find(verify, 'verify'), 'other purposes stay')
      await store.accountTokens.revokeAll(account.id, 'reset')
      assert.equal(await store.accountTokens.find(third, 'reset'), undefined)
    })

    it('keeps the newest live earlier tokens when asked, voiding older, used and expired ones', async () => {
      const issue = (ttl = RESET_TOKEN_TTL_MS) => {
        clock += 1000
        return store.accountTokens.issue(account.id, 'reset', account.email, ttl, 2)
      }
      const expired = await issue(1000)
      const used = await issue()
      assert.ok(await store.accountTokens.use(used, 'reset'))
      const oldest = await issue()
      const older = await issue()
      const old = await issue()
      const newest = await issue()
      const live = async (secret: string) =>
        (await store.accountTokens.find(secret, 'reset')) !== undefined
      // The two newest earlier links that still worked stay; the new one makes three.
      assert.deepEqual(await Promise.all([expired, used, oldest, older, old, newest].map(live)), [
        false,
        false,
        false,
        true,
        true,
        true,
      ])
      const rows = await store.db.selectFrom('account_tokens').select('token_hash').execute()
      assert.equal(rows.length, 3, 'the others are deleted')
      assert.ok(await store.accountTokens.use(old, 'reset'))
    })

    it('finds nothing for malformed, oversized or unknown secrets', async () => {
      await store.accountTokens.issue(account.id, 'reset', account.email, 60_000)
      for (const secret of ['', 'x', 'a'.repeat(43), 'a'.repeat(10_000), "' or 1=1 --", '%00']) {
        assert.equal(await store.accountTokens.use(secret, 'reset'), undefined, secret.slice(0, 20))
      }
    })

    it('finds accounts by email in any case, and marks the current address verified', async () => {
      assert.deepEqual(await store.accountTokens.accountByEmail('  OWNER@example.COM '), {
        accountId: account.id,
        email: 'owner@example.com',
      })
      assert.equal(await store.accountTokens.accountByEmail('nobody@example.com'), undefined)
      assert.equal(await store.accountTokens.verifiedAt(account.id), null)
      assert.equal(await store.accountTokens.markVerified(account.id, 'old@example.com'), false)
      assert.equal(await store.accountTokens.verifiedAt(account.id), null)
      assert.equal(await store.accountTokens.markVerified(account.id, 'owner@example.com'), true)
      assert.deepEqual(await store.accountTokens.verifiedAt(account.id), new Date(clock))
    })

    it('deletes the tokens of an account with the account', async () => {
      await store.accountTokens.issue(account.id, 'verify', account.email, 60_000)
      await store.deleteAccount(account.id)
      assert.equal((await store.db.selectFrom('account_tokens').selectAll().execute()).length, 0)
    })
  })
}
