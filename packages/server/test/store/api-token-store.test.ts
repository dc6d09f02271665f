/**
 * The API-token part of the store contract (`store.apiTokens`), run against SQLite always and
 * PostgreSQL when TEST_DATABASE_URL is set: secrets are shown once and stored as hashes, tokens
 * authenticate until revoked, record their last use at most once a minute, and an account can
 * list and revoke only its own.
 */

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { MAX_API_TOKENS } from '../../src/store/api-token-store.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { StoreErrorCode } from '../../src/store/store-error.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const START = Date.parse('2026-03-04T05:06:07.089Z')
const SECRET = /^btk_[A-Za-z0-9_-]{43}$/

function isStoreError(code: StoreErrorCode) {
  return (error: unknown) => error instanceof StoreError && error.code === code
}

for (const backend of testBackends()) {
  describe(`API tokens on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number
    let ann: Account
    let bob: Account

    beforeEach(async () => {
      clock = START
      database = await backend.create()
      store = await openStore(database.config, { now: () => new Date(clock) })
      ann = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      bob = await store.createAccount({ email: 'bob@example.com', slug: 'bob' })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('creates a named token whose secret authenticates its account', async () => {
      const { token, secret } = await store.apiTokens.create(ann.id, '  deploy script ')
      assert.match(secret, SECRET)
      assert.match(token.id, /^tok_[0-9a-f]{20}$/)
      assert.deepEqual(token, {
        id: token.id,
        accountId: ann.id,
        name: 'deploy script',
        createdAt: new Date(START),
        lastUsedAt: null,
      })
      assert.deepEqual(await store.apiTokens.authenticate(secret), {
        accountId: ann.id,
        tokenId: token.id,
      })
    })

    it('stores only the SHA-256 of the secret', async () => {
      const { secret } = await store.apiTokens.create(ann.id, 'ci')
      const rows = await store.db.selectFrom('api_tokens').selectAll().execute()
      assert.equal(rows[0]?.token_hash, createHash('sha256').update(secret).digest('hex'))
      assert.ok(!JSON.stringify(rows).includes(secret.slice(4)))
    })

    it('authenticates nothing unknown, malformed, oversized or of another kind', async () => {
      const { secret } = await store.apiTokens.create(ann.id, 'ci')
      const hash = createHash('sha256').update(secret).digest('hex')
      const forged = [
        '',
        'btk_',
        secret.slice(4),
        secret + 'x',
        secret.slice(0, -1),
        'mtk_' + secret.slice(4),
        `btk_${'A'.repeat(43)}`,
        hash,
        'btk_' + 'x'.repeat(1e6),
      ]
      for (const candidate of forged) {
        assert.equal(await store.apiTokens.authenticate(candidate), undefined)
      }
    })

    it('records the last use at most once a minute', async () => {
      const { token, secret } = await store.apiTokens.create(ann.id, 'ci')
      const lastUsed = async () => (await store.apiTokens.list(ann.id))[0]?.lastUsedAt
      clock = START + 5000
      await store.apiTokens.authenticate(secret)
      assert.deepEqual(await lastUsed(), new Date(START + 5000))
      clock = START + 5000 + 59_999
      await store.apiTokens.authenticate(secret)
      assert.deepEqual(await lastUsed(), new Date(START + 5000))
      clock = START + 5000 + 60_000
      assert.equal((await store.apiTokens.authenticate(secret))?.tokenId, token.id)
      assert.deepEqual(await lastUsed(), new Date(clock))
    })

    it('lists an account’s own tokens, newest first', async () => {
      const first = await store.apiTokens.create(ann.id, 'first')
      clock += 1000
      const second = await store.apiTokens.create(ann.id, 'second')
      await store.apiTokens.create(bob.id, 'bob’s')
      assert.deepEqual(await store.apiTokens.list(ann.id), [second.token, first.token])
      assert.deepEqual(
        (await store.apiTokens.list(bob.id)).map((t) => t.name),
        ['bob’s'],
      )
      assert.deepEqual(await store.apiTokens.list('acc_nope'), [])
    })

    it('revokes a token at once; revoking again says so', async () => {
      const kept = await store.apiTokens.create(ann.id, 'kept')
      const gone = await store.apiTokens.create(ann.id, 'gone')
      assert.equal(await store.apiTokens.revoke(ann.id, gone.token.id), true)
      assert.equal(await store.apiTokens.authenticate(gone.secret), undefined)
      assert.equal(await store.apiTokens.revoke(ann.id, gone.token.id), false)
      assert.equal(await store.apiTokens.revoke(ann.id, 'tok_nope'), false)
      assert.equal((await store.apiTokens.authenticate(kept.secret))?.tokenId, kept.token.id)
    })

    it('never lets one account revoke another’s token', async () => {
      const theirs = await store.apiTokens.create(bob.id, 'bob’s')
      assert.equal(await store.apiTokens.revoke(ann.id, theirs.token.id), false)
      assert.equal((await store.apiTokens.authenticate(theirs.secret))?.accountId, bob.id)
      assert.deepEqual(await store.apiTokens.list(ann.id), [])
    })

    it(`caps an account at ${MAX_API_TOKENS} tokens, and makes room when one is revoked`, async () => {
      const made = []
      for (let i = 0; i < MAX_API_TOKENS; i++)
        made.push(await store.apiTokens.create(ann.id, `t${i}`))
      await assert.rejects(store.apiTokens.create(ann.id, 'one more'), (error: unknown) => {
        assert.ok(isStoreError('invalid')(error))
        assert.match((error as Error).message, /at most 50 API tokens; revoke one/)
        return true
      })
      await store.apiTokens.create(bob.id, 'another account')
      assert.ok(await store.apiTokens.revoke(ann.id, made[0]!.token.id))
      await store.apiTokens.create(ann.id, 'in its place')
    })

    it('holds the cap when twenty creates come at once', async () => {
      for (let i = 0; i < MAX_API_TOKENS - 5; i++) await store.apiTokens.create(ann.id, `t${i}`)
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.apiTokens.create(ann.id, `at once ${i}`)),
      )
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5)
      for (const o of outcomes) {
        if (o.status === 'rejected') assert.ok(isStoreError('invalid')(o.reason))
      }
      assert.equal((await store.apiTokens.list(ann.id)).length, MAX_API_TOKENS)
    })

    it('refuses a blank, over-long or unprintable name, and an unknown account', async () => {
      for (const name of ['', '   ', 'n'.repeat(101), 'tab\there', 'line\nbreak']) {
        await assert.rejects(store.apiTokens.create(ann.id, name), (error: unknown) => {
          assert.ok(isStoreError('invalid')(error))
          assert.match((error as Error).message, /1 to 100 printable characters/)
          return true
        })
      }
      assert.equal((await store.apiTokens.create(ann.id, 'n'.repeat(100))).token.name.length, 100)
      await assert.rejects(store.apiTokens.create('acc_nope', 'ci'), isStoreError('not_found'))
      assert.equal((await store.apiTokens.list(ann.id)).length, 1)
    })
  })
}
