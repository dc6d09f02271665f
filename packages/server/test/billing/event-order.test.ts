/**
 * Events are ordered by the provider's time at full precision, on SQLite always and PostgreSQL
 * when TEST_DATABASE_URL is set: Paddle's times carry microseconds, and two events of one
 * subscription in the same millisecond used to look simultaneous, so the older one, delivered
 * second, was applied over the newer. Rows from before migration 024 (milliseconds only) are
 * still compared by their millisecond.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { priceTable } from '../../src/billing/billing-config.js'
import { BillingStore } from '../../src/billing/billing-store.js'
import { parsePaddleEvent } from '../../src/billing/paddle-event.js'
import type { PaddleEvent } from '../../src/billing/paddle-event.js'
import { parseMicros } from '../../src/billing/provider-time.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { eventBody, subscriptionData, TEST_PRICES } from '../helpers/paddle-events.js'
import type { SubscriptionFields } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const T0 = new Date('2026-03-04T00:00:00.000Z')
/** A time in the millisecond 2026-03-04T00:10:00.123Z, `micros` its microseconds (000–999). */
const inMs = (micros: number) => `2026-03-04T00:10:00.123${String(micros).padStart(3, '0')}Z`

describe('parseMicros', () => {
  it('keeps the microseconds Paddle writes, whatever the offset', () => {
    const second = Date.parse('2024-04-12T10:18:49Z') * 1000
    assert.equal(parseMicros('2024-04-12T10:18:49.621022Z'), second + 621_022)
    assert.equal(parseMicros('2024-04-12T12:18:49.621022+02:00'), second + 621_022)
    assert.equal(parseMicros('2024-04-12T10:18:49.6Z'), second + 600_000)
    assert.equal(parseMicros('2024-04-12T10:18:49.621022999Z'), second + 621_022)
    assert.equal(parseMicros('2024-04-12T10:18:49Z'), second)
  })

  it('gives events and subscription entities their time to the microsecond', () => {
    const event = parsePaddleEvent(
      JSON.stringify({
        ...eventBody('subscription.updated', {
          ...subscriptionData({ accountId: 'acc_1' }),
          updated_at: '2026-03-04T00:00:00.000300Z',
        }),
        occurred_at: '2026-03-04T00:00:00.000700Z',
      }),
    )
    assert.equal(event.occurredAtMicros, T0.getTime() * 1000 + 700)
    assert.equal(event.occurredAt.getTime(), T0.getTime())
    assert.equal(event.subscription?.updatedAtMicros, T0.getTime() * 1000 + 300)
  })
})

for (const backend of testBackends()) {
  describe(`event order to the microsecond on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let billing: BillingStore
    let accountId: string

    /** A subscription event of the test account that happened at RFC 3339 time `at`. */
    const event = (type: string, at: string, fields: SubscriptionFields = {}): PaddleEvent =>
      parsePaddleEvent(
        JSON.stringify({
          ...eventBody(type, subscriptionData({ accountId, ...fields })),
          occurred_at: at,
        }),
      )
    const plan = async () =>
      (
        await store.db
          .selectFrom('accounts')
          .select('plan')
          .where('id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).plan

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config, { now: () => T0 })
      billing = new BillingStore(store.db, () => T0, priceTable(TEST_PRICES))
      accountId = (await store.createAccount({ email: 'ann@example.com', slug: 'ann' })).id
      const created = event('subscription.created', T0.toISOString(), { id: 'sub_1' })
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'applied')
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('leaves the newer of two events 300 µs apart applied when it is delivered first', async () => {
      const canceled = event('subscription.canceled', inMs(700), {
        id: 'sub_1',
        status: 'canceled',
      })
      const update = event('subscription.updated', inMs(400), {
        id: 'sub_1',
        priceId: TEST_PRICES.scale_annual,
      })
      assert.equal((await billing.applyEvent(canceled, 'paddle')).outcome, 'applied')
      assert.equal((await billing.applyEvent(update, 'paddle')).outcome, 'stale')
      assert.equal(await plan(), 'free')
      const sub = await billing.getSubscription(accountId)
      assert.equal(sub?.status, 'canceled')
      assert.equal(sub?.state, 'free')
    })

    it('applies the later of the two when it comes second, and snapshots by their microseconds', async () => {
      const update = event('subscription.updated', inMs(400), {
        id: 'sub_1',
        priceId: TEST_PRICES.scale_annual,
      })
      assert.equal((await billing.applyEvent(update, 'paddle')).outcome, 'applied')
      assert.equal(await plan(), 'scale')
      // The provider's API describes the subscription as it was 100 µs before that update.
      const snapshot = event('subscription.updated', inMs(300), { id: 'sub_1' }).subscription!
      const at = parseMicros(inMs(300))
      assert.equal(await billing.applySnapshot(accountId, snapshot, 'paddle', at), 'stale')
      assert.equal(await plan(), 'scale')
    })

    it('compares a subscription row written before migration 024 by its millisecond', async () => {
      const update = event('subscription.updated', inMs(400), { id: 'sub_1' })
      assert.equal((await billing.applyEvent(update, 'paddle')).outcome, 'applied')
      // As an older burrowd wrote it: milliseconds only.
      await store.db.updateTable('subscriptions').set({ synced_at_us: null }).execute()
      const sameMs = event('subscription.updated', inMs(100), {
        id: 'sub_1',
        priceId: TEST_PRICES.scale_monthly,
      })
      assert.equal((await billing.applyEvent(sameMs, 'paddle')).outcome, 'applied')
      assert.equal(await plan(), 'scale')
      await store.db.updateTable('subscriptions').set({ synced_at_us: null }).execute()
      const before = event('subscription.updated', '2026-03-04T00:10:00.122900Z', {
        id: 'sub_1',
        priceId: TEST_PRICES.pro_monthly,
      })
      assert.equal((await billing.applyEvent(before, 'paddle')).outcome, 'stale')
      assert.equal(await plan(), 'scale')
    })

    it("judges a replaced subscription's event by its own news 300 µs later", async () => {
      await billing.recordCheckout(accountId, 'txn_new', 'paddle')
      const next = event('subscription.created', '2026-03-04T00:05:00.000000Z', {
        id: 'sub_2',
        priceId: TEST_PRICES.scale_monthly,
        transactionId: 'txn_new',
      })
      assert.equal((await billing.applyEvent(next, 'paddle')).outcome, 'applied')
      const oldEnds = event('subscription.canceled', inMs(700), { id: 'sub_1', status: 'canceled' })
      assert.equal((await billing.applyEvent(oldEnds, 'paddle')).outcome, 'ignored')
      // An update of the replaced subscription from before its end must not replace the next.
      const oldUpdate = event('subscription.updated', inMs(400), { id: 'sub_1' })
      assert.equal((await billing.applyEvent(oldUpdate, 'paddle')).outcome, 'stale')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_2')
      assert.equal(await plan(), 'scale')
    })

    it('makes an update 300 µs before a chargeback stale', async () => {
      const chargeback = parsePaddleEvent(
        JSON.stringify({
          ...eventBody('adjustment.created', {
            id: 'adj_1',
            action: 'chargeback',
            status: 'approved',
            subscription_id: 'sub_1',
            transaction_id: 'txn_1',
          }),
          occurred_at: inMs(700),
        }),
      )
      assert.equal((await billing.applyEvent(chargeback, 'paddle')).outcome, 'applied')
      const update = event('subscription.updated', inMs(400), {
        id: 'sub_1',
        priceId: TEST_PRICES.scale_annual,
      })
      assert.equal((await billing.applyEvent(update, 'paddle')).outcome, 'stale')
      assert.equal(await plan(), 'free')
    })
  })
}
