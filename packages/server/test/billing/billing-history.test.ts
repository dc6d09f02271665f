/**
 * The billing history's order, on SQLite always and PostgreSQL when TEST_DATABASE_URL is set:
 * total and the same on both. Events recorded before migration 024 have no microseconds
 * (`occurred_at_us` null), and several in one millisecond tied: PostgreSQL sorted those nulls
 * first, SQLite last, and the tied rows came in whatever order each database read them.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { readBillingHistory } from '../../src/billing/billing-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const AT = '2026-03-04T00:00:00.123Z'
const AT_US = Date.parse(AT) * 1000

for (const backend of testBackends()) {
  describe(`billing history on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let accountId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      accountId = (await store.createAccount({ email: 'ann@example.com', slug: 'ann' })).id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    /** Record an applied event of `type` that occurred in the millisecond AT. */
    const record = (eventId: string, type: string, us: number | null, receivedAt: string) =>
      store.db
        .insertInto('billing_events')
        .values({
          provider: 'paddle',
          event_id: eventId,
          type,
          occurred_at: AT,
          occurred_at_us: us,
          received_at: receivedAt,
          account_id: accountId,
          outcome: 'applied',
        })
        .execute()

    it('orders events of one millisecond, some without microseconds, the same way', async () => {
      // Written in an order that is none of the history's.
      await record('evt_04', 'subscription.canceled', null, '2026-03-04T00:00:03.000Z')
      await record('evt_01', 'subscription.created', null, '2026-03-04T00:00:01.000Z')
      await record('evt_02', 'subscription.paused', null, '2026-03-04T00:00:01.000Z')
      await record('evt_03', 'subscription.resumed', AT_US + 500, '2026-03-04T00:00:02.000Z')
      const history = await readBillingHistory(store.db, accountId)
      assert.deepEqual(
        history.map((e) => e.kind),
        // One with microseconds first (a row without is read as the millisecond's start), then
        // the newest received, then the greatest event id.
        ['resumed', 'canceled', 'paused', 'subscribed'],
      )
      assert.ok(history.every((e) => e.at.toISOString() === AT))
    })
  })
}
