/**
 * A request's credential checked again under the account's lock, on SQLite always and on
 * PostgreSQL when TEST_DATABASE_URL is set: a change made with an API token or a browser session
 * revoked since the request arrived is refused, whatever it makes (a token, a tunnel, a webhook
 * endpoint); requests acting with no credential (the operator, the billing webhooks) are not
 * checked; and revoking every token of an account at once leaves none, even one being made
 * meanwhile.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { actAs } from '../../src/store/acting-credential.js'
import { openStore } from '../../src/store/open-store.js'
import { StoreError } from '../../src/store/store-error.js'
import type { Account, Store } from '../../src/store/store.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const revoked = (error: unknown) => error instanceof StoreError && error.code === 'unauthorized'

for (const backend of testBackends()) {
  describe(`acting credentials on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let ann: Account

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      ann = await store.createAccount({ email: 'ann@example.com', slug: 'ann' })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('refuses what a revoked API token makes, and lets a live one make it', async () => {
      const { token } = await store.apiTokens.create(ann.id, 'held')
      const asToken = { kind: 'api_token', id: token.id } as const
      const made = await actAs(asToken, () => store.apiTokens.create(ann.id, 'second'))
      assert.match(made.secret, /^btk_/)
      assert.equal(await store.apiTokens.revoke(ann.id, token.id), true)
      await assert.rejects(
        actAs(asToken, () => store.apiTokens.create(ann.id, 'kept')),
        revoked,
      )
      await assert.rejects(
        actAs(asToken, () => store.createTunnelWithinPlan({ accountId: ann.id, name: 'kept' })),
        revoked,
      )
      const webhooks = new WebhookEndpointStore(store.db, () => new Date())
      await assert.rejects(
        actAs(asToken, () => webhooks.create(ann.id, { url: 'https://example.com/hook' })),
        revoked,
      )
      // Nothing was made by the revoked token; the operator (no credential) still can.
      assert.deepEqual(
        (await store.apiTokens.list(ann.id)).map((t) => t.name),
        ['second'],
      )
      assert.equal((await store.listTunnels(ann.id)).length, 0)
      await store.createTunnelWithinPlan({ accountId: ann.id, name: 'operator' })
    })

    it('refuses what a signed-out browser session makes', async () => {
      const session = await store.webSessions.create(ann.id)
      const asSession = { kind: 'session', token: session.token } as const
      await actAs(asSession, () => store.apiTokens.create(ann.id, 'while signed in'))
      await store.webSessions.delete(session.token)
      await assert.rejects(
        actAs(asSession, () => store.apiTokens.create(ann.id, 'after sign-out')),
        revoked,
      )
      // A session of another account does not act for this one.
      const bob = await store.createAccount({ email: 'bob@example.com', slug: 'bob' })
      const bobs = await store.webSessions.create(bob.id)
      await assert.rejects(
        actAs({ kind: 'session', token: bobs.token }, () => store.apiTokens.create(ann.id, 'x')),
        revoked,
      )
    })

    it('revokes every token of an account at once, tokens being made meanwhile included', async () => {
      const first = await store.apiTokens.create(ann.id, 'first')
      const asFirst = { kind: 'api_token', id: first.token.id } as const
      // Tokens made one after another with the newest, while every token is revoked.
      let newest = asFirst as { kind: 'api_token'; id: string }
      const making = (async () => {
        for (let i = 0; i < 20; i++) {
          const made = await actAs(newest, () => store.apiTokens.create(ann.id, `n${i}`)).catch(
            () => null,
          )
          if (made === null) return
          newest = { kind: 'api_token', id: made.token.id }
        }
      })()
      await store.apiTokens.revokeAll(ann.id)
      await making
      assert.deepEqual(await store.apiTokens.list(ann.id), [])
    })
  })
}
