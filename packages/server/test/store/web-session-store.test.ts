/**
 * The browser-session part of the store contract (`store.webSessions`), run against SQLite
 * always and PostgreSQL when TEST_DATABASE_URL is set: the cookie secret is stored only as a
 * hash, sessions expire after 30 days unless used, use past half-life renews them, and signing
 * out ends one session, all of an account's, or the expired ones.
 */

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { WebSessionStore } from '../../src/store/web-session-store.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { Account, Store } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const START = Date.parse('2026-03-04T05:06:07.089Z')
const DAY = 24 * 60 * 60 * 1000
const TOKEN = /^[A-Za-z0-9_-]{43}$/

for (const backend of testBackends()) {
  describe(`web sessions on ${backend.name}`, () => {
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

    it('creates a session found by its token, with a CSRF token and a 30-day expiry', async () => {
      const session = await store.webSessions.create(ann.id)
      assert.match(session.token, TOKEN)
      assert.ok(session.csrfToken.length >= 32)
      assert.notEqual(session.csrfToken, session.token)
      assert.deepEqual(session.expiresAt, new Date(START + 30 * DAY))
      assert.deepEqual(await store.webSessions.find(session.token), {
        accountId: ann.id,
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
      })
      const other = await store.webSessions.create(ann.id)
      assert.notEqual(other.token, session.token)
      assert.notEqual(other.csrfToken, session.csrfToken)
    })

    it('stores only the SHA-256 of the token', async () => {
      const { token } = await store.webSessions.create(ann.id)
      const rows = await store.db.selectFrom('web_sessions').selectAll().execute()
      assert.equal(rows.length, 1)
      assert.equal(rows[0]?.id, createHash('sha256').update(token).digest('hex'))
      assert.ok(!JSON.stringify(rows).includes(token))
    })

    it('finds nothing for unknown, malformed or oversized tokens', async () => {
      const { token } = await store.webSessions.create(ann.id)
      for (const forged of [
        '',
        token.slice(1),
        token + 'x',
        `${token.slice(0, 42)}!`,
        'x'.repeat(1e6),
      ]) {
        assert.equal(await store.webSessions.find(forged), undefined)
      }
      const hash = createHash('sha256').update(token).digest('hex')
      assert.equal(await store.webSessions.find(hash), undefined, 'the stored hash is no token')
    })

    it('refuses a session for an unknown account', async () => {
      await assert.rejects(
        store.webSessions.create('acc_nope'),
        (error: unknown) => error instanceof StoreError && error.code === 'not_found',
      )
    })

    it('renews a session used after half its lifetime, and ends an unused one', async () => {
      const session = await store.webSessions.create(ann.id)
      clock = START + 14 * DAY
      assert.deepEqual((await store.webSessions.find(session.token))?.expiresAt, session.expiresAt)

      clock = START + 16 * DAY
      const renewed = new Date(clock + 30 * DAY)
      assert.deepEqual((await store.webSessions.find(session.token))?.expiresAt, renewed)
      clock = START + 30 * DAY // 16 days left: more than half, so no renewal yet
      assert.deepEqual((await store.webSessions.find(session.token))?.expiresAt, renewed)

      clock = renewed.getTime() - 1
      assert.equal((await store.webSessions.find(session.token))?.accountId, ann.id)
      const unused = await store.webSessions.create(ann.id)
      clock = unused.expiresAt.getTime()
      assert.equal(await store.webSessions.find(unused.token), undefined)
    })

    it('honours another lifetime', async () => {
      const hourly = new WebSessionStore(store.db, () => new Date(clock), 3_600_000)
      const session = await hourly.create(ann.id)
      assert.deepEqual(session.expiresAt, new Date(START + 3_600_000))
      clock = START + 3_600_000
      assert.equal(await hourly.find(session.token), undefined)
    })

    it('signs out one session', async () => {
      const first = await store.webSessions.create(ann.id)
      const second = await store.webSessions.create(ann.id)
      await store.webSessions.delete(first.token)
      await store.webSessions.delete('not a token')
      assert.equal(await store.webSessions.find(first.token), undefined)
      assert.equal((await store.webSessions.find(second.token))?.accountId, ann.id)
    })

    it('signs out all of one account’s sessions, optionally but one', async () => {
      const [a1, a2, a3] = [
        await store.webSessions.create(ann.id),
        await store.webSessions.create(ann.id),
        await store.webSessions.create(ann.id),
      ]
      const b1 = await store.webSessions.create(bob.id)
      assert.equal(await store.webSessions.deleteForAccount(ann.id, a3.token), 2)
      assert.equal(await store.webSessions.find(a1.token), undefined)
      assert.equal(await store.webSessions.find(a2.token), undefined)
      assert.equal((await store.webSessions.find(a3.token))?.accountId, ann.id)
      assert.equal((await store.webSessions.find(b1.token))?.accountId, bob.id)
      assert.equal(await store.webSessions.deleteForAccount(ann.id), 1)
      assert.equal(await store.webSessions.find(a3.token), undefined)
      assert.equal((await store.webSessions.find(b1.token))?.accountId, bob.id)
    })

    it('purges expired sessions only', async () => {
      const old = await store.webSessions.create(ann.id)
      clock = START + 20 * DAY
      const fresh = await store.webSessions.create(bob.id)
      clock = START + 30 * DAY
      assert.equal(await store.webSessions.purgeExpired(), 1)
      assert.equal(await store.webSessions.purgeExpired(), 0)
      const left = await store.db.selectFrom('web_sessions').select('account_id').execute()
      assert.deepEqual(left, [{ account_id: bob.id }])
      assert.equal(await store.webSessions.find(old.token), undefined)
      assert.equal((await store.webSessions.find(fresh.token))?.accountId, bob.id)
    })

    it('purges a backlog of expired sessions in statements of a bounded size', async () => {
      for (let i = 0; i < 7; i++) await store.webSessions.create(ann.id)
      clock = START + 20 * DAY
      const fresh = await store.webSessions.create(bob.id)
      clock = START + 30 * DAY
      const statements: string[] = []
      const counting = new WebSessionStore(
        store.db.withPlugin({
          transformQuery: (args) => {
            if (args.node.kind === 'DeleteQueryNode') statements.push(args.queryId.queryId)
            return args.node
          },
          transformResult: async (args) => args.result,
        }),
        () => new Date(clock),
      )
      assert.equal(await counting.purgeExpired(3), 7)
      // 3, 3 and 1: the statement that deletes fewer than the batch is the last.
      assert.equal(statements.length, 3)
      const left = await store.db.selectFrom('web_sessions').select('account_id').execute()
      assert.deepEqual(left, [{ account_id: bob.id }])
      assert.equal((await store.webSessions.find(fresh.token))?.accountId, bob.id)
    })
  })
}
