/**
 * `recordAttempt` on SQLite always and PostgreSQL when TEST_DATABASE_URL is set, for the cases
 * the dispatcher tests cannot reach: an attempt whose delivery was cancelled meanwhile, or whose
 * lease ran out and another node took the next attempt, changes nothing. (Retries, 410 and
 * giving up are covered end to end in webhook-dispatcher.test.ts.)
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { recordAttempt } from '../../src/webhooks/record-attempt.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`recordAttempt on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let endpointId: string
    const at = new Date('2026-03-04T05:06:07.089Z')
    const failed = { kind: 'failed', status: 500, error: 'HTTP 500', retryAfterMs: null } as const

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      const endpoints = new WebhookEndpointStore(store.db, () => at)
      endpointId = (await endpoints.create(accountId, { url: 'https://x.example.com/' })).id
      await enqueueWebhookEvent(store.db, {
        accountId,
        type: 'quota.warning',
        id: 'evt_1',
        data: {},
        occurredAt: at,
      })
      // As a dispatcher's claim leaves it: attempt 1 under way.
      await store.db.updateTable('webhook_deliveries').set({ attempts: 1 }).execute()
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    const state = async () => ({
      delivery: await store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .executeTakeFirstOrThrow(),
      endpoint: await store.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .executeTakeFirstOrThrow(),
    })

    it('records a failure with its next attempt and counts it against the endpoint', async () => {
      // Put off before (postpone-attempt.ts): made now, it is no longer put off.
      await store.db
        .updateTable('webhook_deliveries')
        .set({ postponed_since: at.toISOString() })
        .execute()
      const delivery = { id: 'evt_1', endpointId, attempt: 1, at }
      assert.equal(await recordAttempt(store.db, delivery, failed, () => 0.5), null)
      const { delivery: row, endpoint } = await state()
      assert.equal(row.status, 'pending')
      assert.equal(row.next_attempt_at, new Date(at.getTime() + 5000).toISOString())
      assert.equal(row.last_error, 'HTTP 500')
      assert.equal(row.postponed_since, null)
      assert.equal(Number(endpoint.consecutive_failures), 1)
    })

    it('changes nothing for a delivery cancelled meanwhile', async () => {
      await store.db.updateTable('webhook_deliveries').set({ status: 'cancelled' }).execute()
      const before = await state()
      const delivery = { id: 'evt_1', endpointId, attempt: 1, at }
      assert.equal(
        await recordAttempt(
          store.db,
          delivery,
          { kind: 'gone', status: 410, error: 'HTTP 410' },
          () => 0.5,
        ),
        null,
      )
      assert.deepEqual(await state(), before)
    })

    it('changes nothing when another node has taken a later attempt', async () => {
      await store.db.updateTable('webhook_deliveries').set({ attempts: 2 }).execute()
      const before = await state()
      const delivery = { id: 'evt_1', endpointId, attempt: 1, at }
      assert.equal(await recordAttempt(store.db, delivery, failed, () => 0.5), null)
      assert.deepEqual(await state(), before)
    })
  })
}
