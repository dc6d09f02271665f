/**
 * The billing store's contract, on SQLite always and PostgreSQL when TEST_DATABASE_URL is set:
 * events are recorded once and applied in occurrence order, unknown accounts and prices change
 * nothing, an old subscription's end does not end a newer one, and the expiry sweep moves
 * accounts whose paid period ended to Free.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { priceTable } from '../../src/billing/billing-config.js'
import { BillingError } from '../../src/billing/billing-error.js'
import { BillingStore } from '../../src/billing/billing-store.js'
import { parsePaddleEvent } from '../../src/billing/paddle-event.js'
import type { PaddleEvent } from '../../src/billing/paddle-event.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { eventBody, subscriptionData, TEST_PRICES } from '../helpers/paddle-events.js'
import type { SubscriptionFields } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'
import type { TestDatabase } from '../helpers/test-databases.js'

const T0 = new Date('2026-03-04T00:00:00.000Z')
const PERIOD_END = new Date('2026-04-04T00:00:00.000Z')
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000)

for (const backend of testBackends()) {
  describe(`BillingStore on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let billing: BillingStore
    let now: Date
    let accountId: string

    /** A subscription event for the test account. */
    const event = (
      type: string,
      fields: SubscriptionFields & { occurredAt?: Date; eventId?: string } = {},
    ): PaddleEvent =>
      parsePaddleEvent(
        JSON.stringify(
          eventBody(type, subscriptionData({ accountId, periodEndsAt: PERIOD_END, ...fields }), {
            ...(fields.eventId ? { eventId: fields.eventId } : {}),
            occurredAt: fields.occurredAt ?? now,
          }),
        ),
      )
    const accountRow = () =>
      store.db
        .selectFrom('accounts')
        .select(['plan', 'plan_expires_at'])
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
    const outcomes = async () =>
      (
        await store.db
          .selectFrom('billing_events')
          .select(['event_id', 'outcome', 'account_id'])
          .orderBy('received_at')
          .execute()
      ).map((r) => r.outcome)

    beforeEach(async () => {
      database = await backend.create()
      now = T0
      store = await openStore(database.config, { now: () => now })
      billing = new BillingStore(store.db, () => now, priceTable(TEST_PRICES))
      accountId = (await store.createAccount({ email: 'ann@example.com', slug: 'ann' })).id
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('applies a subscription event: plan, subscription row and event record', async () => {
      const result = await billing.applyEvent(
        event('subscription.created', { id: 'sub_1' }),
        'paddle',
      )
      assert.deepEqual(result, { outcome: 'applied', accountId })
      assert.deepEqual(await accountRow(), { plan: 'pro', plan_expires_at: null })
      assert.deepEqual(await billing.getSubscription(accountId), {
        accountId,
        provider: 'paddle',
        subscriptionId: 'sub_1',
        customerId: 'ctm_01test',
        plan: 'pro',
        cycle: 'monthly',
        status: 'active',
        state: 'paid',
        periodEndsAt: PERIOD_END,
        cancelsAt: null,
        chargedBackAt: null,
        // Bound by its custom data alone (no checkout burrowd made): it refuses no checkout.
        fromCheckout: false,
        syncedAt: T0,
        updatedAt: T0,
      })
      const [row] = await store.db.selectFrom('billing_events').selectAll().execute()
      assert.deepEqual(row, {
        provider: 'paddle',
        event_id: row!.event_id,
        type: 'subscription.created',
        occurred_at: T0.toISOString(),
        // bigint: a string on PostgreSQL, a number on SQLite.
        occurred_at_us: row!.occurred_at_us,
        received_at: T0.toISOString(),
        account_id: accountId,
        subscription_id: 'sub_1',
        action: null,
        transaction_id: null,
        outcome: 'applied',
      })
      assert.equal(Number(row.occurred_at_us), T0.getTime() * 1000)
    })

    it("does not let another customer's subscription naming the account replace its paid one", async () => {
      const own = { id: 'sub_own', customerId: 'ctm_owner', priceId: TEST_PRICES.scale_annual }
      assert.equal(
        (await billing.applyEvent(event('subscription.created', own), 'paddle')).outcome,
        'applied',
      )
      // Someone else pays with custom data naming this account, then cancels.
      const foreign = { id: 'sub_foreign', customerId: 'ctm_stranger', occurredAt: minutes(10) }
      assert.equal(
        (await billing.applyEvent(event('subscription.created', foreign), 'paddle')).outcome,
        'ignored',
      )
      const canceled = {
        ...foreign,
        status: 'canceled',
        periodEndsAt: null,
        occurredAt: minutes(20),
      }
      assert.equal(
        (await billing.applyEvent(event('subscription.canceled', canceled), 'paddle')).outcome,
        'ignored',
      )
      assert.equal((await accountRow()).plan, 'scale')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_own')
      // The same customer buying again through a checkout burrowd made replaces it, as before.
      await billing.recordCheckout(accountId, 'txn_again', 'paddle')
      const again = {
        id: 'sub_again',
        customerId: 'ctm_owner',
        occurredAt: minutes(30),
        transactionId: 'txn_again',
      }
      assert.equal(
        (await billing.applyEvent(event('subscription.created', again), 'paddle')).outcome,
        'applied',
      )
    })

    it("keeps a stranger's subscription from an operator-granted plan, and binds burrowd's checkout", async () => {
      await store.db
        .updateTable('accounts')
        .set({ plan: 'scale', plan_expires_at: null })
        .where('id', '=', accountId)
        .execute()
      // A checkout of the stranger's own naming this account: its creation is refused, and so
      // are its later events; the plan the operator granted stays.
      const foreign = {
        id: 'sub_foreign',
        customerId: 'ctm_stranger',
        transactionId: 'txn_theirs',
        occurredAt: minutes(1),
      }
      assert.deepEqual(await billing.applyEvent(event('subscription.created', foreign), 'paddle'), {
        outcome: 'ignored',
        accountId,
      })
      const canceled = {
        ...foreign,
        status: 'canceled',
        periodEndsAt: null,
        occurredAt: minutes(2),
      }
      assert.equal(
        (await billing.applyEvent(event('subscription.canceled', canceled), 'paddle')).outcome,
        'ignored',
      )
      assert.deepEqual(await accountRow(), { plan: 'scale', plan_expires_at: null })
      assert.equal(await billing.getSubscription(accountId), undefined)

      // The owner buys through burrowd's checkout; its activation overtakes its creation, and is
      // refused unrecorded until the creation has bound the subscription.
      await billing.recordCheckout(accountId, 'txn_ours', 'paddle')
      const ours = {
        id: 'sub_ours',
        customerId: 'ctm_owner',
        priceId: TEST_PRICES.pro_annual,
        transactionId: 'txn_ours',
      }
      const early = event('subscription.activated', { ...ours, occurredAt: minutes(4) })
      await assert.rejects(
        billing.applyEvent(early, 'paddle'),
        (error: unknown) =>
          error instanceof BillingError && error.code === 'unverified_subscription',
      )
      assert.equal((await outcomes()).length, 2)
      assert.equal(
        (
          await billing.applyEvent(
            event('subscription.created', { ...ours, occurredAt: minutes(3) }),
            'paddle',
          )
        ).outcome,
        'applied',
      )
      assert.equal((await billing.applyEvent(early, 'paddle')).outcome, 'applied')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_ours')
      assert.equal((await accountRow()).plan, 'pro')
    })

    it('binds a subscription to the account whose checkout made it, whatever its custom data', async () => {
      const other = (await store.createAccount({ email: 'bob@example.com', slug: 'bob' })).id
      await billing.recordCheckout(accountId, 'txn_ann', 'paddle')
      const result = await billing.applyEvent(
        event('subscription.created', {
          id: 'sub_ann',
          accountId: other,
          transactionId: 'txn_ann',
        }),
        'paddle',
      )
      assert.deepEqual(result, { outcome: 'applied', accountId })
      assert.equal(await billing.getSubscription(other), undefined)
    })

    it('records a duplicate event once and changes nothing the second time', async () => {
      const created = event('subscription.created', { eventId: 'evt_dup' })
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'applied')
      // Meanwhile the account was moved by hand; a redelivery must not undo that.
      await store.db
        .updateTable('accounts')
        .set({ plan: 'scale' })
        .where('id', '=', accountId)
        .execute()
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'duplicate')
      assert.equal((await accountRow()).plan, 'scale')
      assert.deepEqual(await outcomes(), ['applied'])
    })

    it('keeps duplicates apart per provider', async () => {
      const created = event('subscription.created', { eventId: 'evt_same' })
      assert.equal((await billing.applyEvent(created, 'dev')).outcome, 'applied')
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'applied')
    })

    it('applies concurrent deliveries of one event exactly once', async () => {
      const created = event('subscription.created', { eventId: 'evt_race' })
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => billing.applyEvent(created, 'paddle')),
      )
      assert.deepEqual(results.map((r) => r.outcome).sort(), [
        'applied',
        'duplicate',
        'duplicate',
        'duplicate',
      ])
    })

    it('records an event older than the last one applied as stale and changes nothing', async () => {
      const cancelAt = PERIOD_END
      await billing.applyEvent(event('subscription.created', { occurredAt: minutes(0) }), 'paddle')
      await billing.applyEvent(
        event('subscription.updated', { occurredAt: minutes(10), scheduledCancelAt: cancelAt }),
        'paddle',
      )
      // An update from before the cancellation arrives late: it must not undo the cancellation.
      const late = await billing.applyEvent(
        event('subscription.updated', {
          occurredAt: minutes(5),
          priceId: TEST_PRICES.scale_monthly,
        }),
        'paddle',
      )
      assert.equal(late.outcome, 'stale')
      assert.deepEqual(await accountRow(), { plan: 'pro', plan_expires_at: cancelAt.toISOString() })
      assert.equal((await billing.getSubscription(accountId))?.state, 'paid_until')
      assert.deepEqual(await outcomes(), ['applied', 'applied', 'stale'])
    })

    it('applies an event at the same instant as the last one (arrival order breaks the tie)', async () => {
      await billing.applyEvent(event('subscription.created', { occurredAt: minutes(0) }), 'paddle')
      const same = await billing.applyEvent(
        event('subscription.activated', {
          occurredAt: minutes(0),
          priceId: TEST_PRICES.scale_annual,
        }),
        'paddle',
      )
      assert.equal(same.outcome, 'applied')
      assert.equal((await accountRow()).plan, 'scale')
    })

    it('records transaction and unknown events as ignored', async () => {
      const txn = parsePaddleEvent(
        JSON.stringify(eventBody('transaction.completed', { id: 'txn_1' })),
      )
      assert.deepEqual(await billing.applyEvent(txn, 'paddle'), {
        outcome: 'ignored',
        accountId: null,
      })
      const odd = event('subscription.something_new')
      assert.equal((await billing.applyEvent(odd, 'paddle')).outcome, 'ignored')
      assert.equal((await accountRow()).plan, 'free')
      assert.deepEqual(await outcomes(), ['ignored', 'ignored'])
    })

    it('records an event for an account it does not have as unknown_account', async () => {
      // The custom data is the buyer's to write: a NUL, which PostgreSQL's text refuses, too.
      for (const customData of [{ account_id: 'acc_nobody' }, { account_id: 'acc_\u0000' }, null]) {
        const result = await billing.applyEvent(
          parsePaddleEvent(
            JSON.stringify(eventBody('subscription.created', subscriptionData({ customData }))),
          ),
          'paddle',
        )
        assert.deepEqual(result, { outcome: 'unknown_account', accountId: null })
      }
      assert.equal(await billing.getSubscription(accountId), undefined)
    })

    it('finds the account by the subscription once bound, even without custom data', async () => {
      await billing.applyEvent(event('subscription.created', { id: 'sub_1' }), 'paddle')
      const bare = parsePaddleEvent(
        JSON.stringify(
          eventBody(
            'subscription.canceled',
            subscriptionData({ id: 'sub_1', status: 'canceled', customData: null }),
            {
              occurredAt: minutes(1),
            },
          ),
        ),
      )
      assert.deepEqual(await billing.applyEvent(bare, 'paddle'), { outcome: 'applied', accountId })
      assert.deepEqual(await accountRow(), { plan: 'free', plan_expires_at: null })
    })

    it('refuses an unknown price and records nothing, so a retry can succeed later', async () => {
      const bad = event('subscription.created', {
        priceId: 'pri_not_configured',
        eventId: 'evt_price',
      })
      await assert.rejects(billing.applyEvent(bad, 'paddle'), (error: unknown) => {
        return error instanceof BillingError && error.code === 'unknown_price'
      })
      assert.deepEqual(await outcomes(), [])
      assert.equal((await accountRow()).plan, 'free')
    })

    it('ignores the end of a replaced subscription while the new one is live', async () => {
      await billing.recordCheckout(accountId, 'txn_new', 'paddle')
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_old', occurredAt: minutes(0) }),
        'paddle',
      )
      await billing.applyEvent(
        event('subscription.created', {
          id: 'sub_new',
          occurredAt: minutes(5),
          priceId: TEST_PRICES.scale_monthly,
          transactionId: 'txn_new',
        }),
        'paddle',
      )
      const oldEnds = await billing.applyEvent(
        event('subscription.canceled', {
          id: 'sub_old',
          status: 'canceled',
          occurredAt: minutes(9),
        }),
        'paddle',
      )
      assert.equal(oldEnds.outcome, 'ignored')
      assert.equal((await accountRow()).plan, 'scale')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_new')
    })

    it('moves an account to Free at once when the paid period of a late event has already ended', async () => {
      now = minutes(60 * 24 * 40)
      await billing.applyEvent(
        event('subscription.updated', { occurredAt: minutes(1), scheduledCancelAt: PERIOD_END }),
        'paddle',
      )
      assert.deepEqual(await accountRow(), { plan: 'free', plan_expires_at: null })
    })

    it('applies API snapshots under the same ordering rule', async () => {
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_1', occurredAt: minutes(5) }),
        'paddle',
      )
      const snapshot = event('subscription.updated', {
        id: 'sub_1',
        scheduledCancelAt: PERIOD_END,
      }).subscription!
      assert.equal(await billing.applySnapshot(accountId, snapshot, 'paddle', minutes(4)), 'stale')
      assert.equal(
        await billing.applySnapshot(accountId, snapshot, 'paddle', minutes(6)),
        'applied',
      )
      assert.equal((await billing.getSubscription(accountId))?.state, 'paid_until')
      assert.equal(
        await billing.applySnapshot('acc_nobody', snapshot, 'paddle', minutes(7)),
        'unknown_account',
      )
    })

    it('expireDue moves accounts whose paid period ended to Free and names them', async () => {
      const other = (await store.createAccount({ email: 'bob@example.com', slug: 'bob' })).id
      await billing.applyEvent(
        event('subscription.updated', { scheduledCancelAt: PERIOD_END }),
        'paddle',
      )
      await store.db
        .updateTable('accounts')
        .set({ plan: 'scale', plan_expires_at: new Date(PERIOD_END.getTime() + 1).toISOString() })
        .where('id', '=', other)
        .execute()

      assert.deepEqual(await billing.expireDue(new Date(PERIOD_END.getTime() - 1)), [])
      assert.equal((await accountRow()).plan, 'pro')
      assert.deepEqual(
        await billing.expireDue(PERIOD_END),
        [accountId],
        'due at the instant itself',
      )
      assert.deepEqual(await accountRow(), { plan: 'free', plan_expires_at: null })
      assert.deepEqual(await billing.getAccountPlan(other), {
        plan: 'scale',
        planExpiresAt: new Date(PERIOD_END.getTime() + 1),
      })
      assert.deepEqual(await billing.expireDue(PERIOD_END), [], 'nothing twice')
    })
  })
}
