/**
 * `postponeAttempt` on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: an attempt
 * never made (burrowd's name lookups were busy) is put off uncounted for as long as the
 * schedule's next step from when it was first due, then counted as the delivery's attempt but
 * never as the endpoint's failure. (The whole path, through a nameserver that never answers, is
 * in webhook-bounds.test.ts.)
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { postponeAttempt, postponeLimitMs } from '../../src/webhooks/postpone-attempt.js'
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule.js'
import { WebhookEndpointStore } from '../../src/webhooks/webhook-endpoint-store.js'
import { enqueueWebhookEvent } from '../../src/webhooks/webhook-outbox.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`postponeAttempt on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let endpointId: string
    const due = new Date('2026-03-04T05:06:07.089Z')
    const later = (ms: number) => new Date(due.getTime() + ms)

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      const endpoints = new WebhookEndpointStore(store.db, () => due)
      endpointId = (await endpoints.create(accountId, { url: 'https://x.example.com/' })).id
      await enqueueWebhookEvent(store.db, {
        accountId,
        type: 'quota.warning',
        id: 'evt_1',
        data: {},
        occurredAt: due,
      })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    /** Claim attempt `attempt` as a dispatcher does, and describe it as unmade. */
    const claim = async (attempt: number) => {
      const row = await store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .executeTakeFirstOrThrow()
      await store.db.updateTable('webhook_deliveries').set({ attempts: attempt }).execute()
      return {
        id: 'evt_1',
        endpointId,
        attempt,
        dueAt: row.next_attempt_at ?? due.toISOString(),
        postponedSince: row.postponed_since,
        error: 'lookup of x.example.com waited 10000 ms for a place',
      }
    }
    const row = () =>
      store.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow()
    const failures = async () =>
      Number(
        (
          await store.db
            .selectFrom('webhook_endpoints')
            .select('consecutive_failures')
            .executeTakeFirstOrThrow()
        ).consecutive_failures,
      )

    it('puts an attempt off uncounted, saying why, while within its next step', async () => {
      await store.db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: due.toISOString() })
        .execute()
      assert.equal(await postponeAttempt(store.db, await claim(1), due, () => 0.5), 'postponed')
      let put = await row()
      assert.equal(put.attempts, 0)
      assert.equal(put.status, 'pending')
      assert.equal(put.postponed_since, due.toISOString())
      assert.equal(put.next_attempt_at, later(5000).toISOString())
      assert.match(put.last_error ?? '', /^postponed since 2026-03-04T05:06:07\.089Z: not sent, /)
      // Again at the very limit: still put off, since when unchanged.
      const atLimit = later(postponeLimitMs(1))
      assert.equal(await postponeAttempt(store.db, await claim(1), atLimit, () => 0.5), 'postponed')
      put = await row()
      assert.equal(put.attempts, 0)
      assert.equal(put.postponed_since, due.toISOString())
      assert.equal(await failures(), 0)
    })

    it('counts it past its next step, as the delivery attempt only, and ends it with the schedule', async () => {
      await store.db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: due.toISOString(), postponed_since: due.toISOString() })
        .execute()
      const past = later(postponeLimitMs(1) + 1)
      assert.equal(await postponeAttempt(store.db, await claim(1), past, () => 0.5), 'counted')
      const counted = await row()
      assert.equal(counted.attempts, 1)
      assert.equal(counted.status, 'pending')
      assert.equal(counted.postponed_since, null)
      assert.equal(counted.last_attempt_at, past.toISOString())
      assert.equal(counted.next_attempt_at, new Date(past.getTime() + 5000).toISOString())
      assert.match(counted.last_error ?? '', /counted as attempt 1, not as this endpoint's failure/)
      assert.equal(await failures(), 0)
      // The last attempt, put off past the last step: the delivery fails, the endpoint stays.
      await store.db
        .updateTable('webhook_deliveries')
        .set({ attempts: MAX_ATTEMPTS - 1, postponed_since: due.toISOString() })
        .execute()
      assert.equal(postponeLimitMs(MAX_ATTEMPTS), RETRY_DELAYS_MS.at(-1))
      const end = later(postponeLimitMs(MAX_ATTEMPTS) + 1)
      assert.equal(
        await postponeAttempt(store.db, await claim(MAX_ATTEMPTS), end, () => 0.5),
        'failed',
      )
      const ended = await row()
      assert.equal(ended.status, 'failed')
      assert.equal(ended.next_attempt_at, null)
      assert.equal(await failures(), 0)
      const endpoint = await store.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .executeTakeFirstOrThrow()
      assert.equal(endpoint.disabled_at, null)
    })

    it('counts an attempt whose since-when does not read, rather than put it off for ever', async () => {
      await store.db
        .updateTable('webhook_deliveries')
        .set({ postponed_since: 'not a time' })
        .execute()
      assert.equal(await postponeAttempt(store.db, await claim(1), due, () => 0.5), 'counted')
      assert.equal((await row()).attempts, 1)
    })

    it('changes nothing for a delivery that is no longer this attempt', async () => {
      const unmade = await claim(1)
      await store.db.updateTable('webhook_deliveries').set({ attempts: 2 }).execute()
      const before = await row()
      await postponeAttempt(store.db, unmade, later(60 * 60_000), () => 0.5)
      assert.deepEqual(await row(), before)
    })
  })
}
