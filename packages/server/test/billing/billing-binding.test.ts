/**
 * Binding subscriptions to accounts when events come late or race: the late end of a
 * subscription the account replaced is ignored (at once when its creation was recorded, after
 * the wait when nothing says where it came from), and an event that waited on the account's lock
 * while its subscription's creation bound it is applied (PostgreSQL).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { priceTable } from '../../src/billing/billing-config.js'
import { BillingStore, UNVERIFIED_WAIT_MS } from '../../src/billing/billing-store.js'
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
function defer(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000)

for (const backend of testBackends()) {
  describe(`binding subscriptions to accounts on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let billing: BillingStore
    let now: Date
    let accountId: string
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

    it('a late event of a subscription created before migration 017 and since replaced is ignored, not 409 for ever', async () => {
      // sub_1 bought on Free, before 017 (its billing_events rows have no subscription_id).
      await billing.applyEvent(event('subscription.created', { id: 'sub_1' }), 'paddle')
      await store.db.updateTable('billing_events').set({ subscription_id: null }).execute()
      // The account later buys sub_2 through a checkout burrowd made (sub_1 ran out meanwhile).
      now = minutes(10)
      await billing.recordCheckout(accountId, 'txn_2', 'paddle')
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_2', transactionId: 'txn_2' }),
        'paddle',
      )
      // sub_1's cancellation, delayed or retried by Paddle, arrives now.
      now = minutes(20)
      const late = event('subscription.canceled', {
        id: 'sub_1',
        status: 'canceled',
        occurredAt: minutes(20),
      })
      // Nothing says where it came from: sent back (409) while its creation could still come,
      // ignored once it is too old for that.
      await assert.rejects(billing.applyEvent(late, 'paddle'), /not bound to it/)
      now = new Date(minutes(20).getTime() + UNVERIFIED_WAIT_MS + 1)
      const result = await billing.applyEvent(late, 'paddle')
      assert.equal(result.outcome, 'ignored')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_2')
    })

    it('a late end of a subscription the account replaced, recorded since migration 017, is ignored at once', async () => {
      await billing.applyEvent(event('subscription.created', { id: 'sub_1' }), 'paddle')
      now = minutes(10)
      await billing.recordCheckout(accountId, 'txn_2', 'paddle')
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_2', transactionId: 'txn_2' }),
        'paddle',
      )
      now = minutes(20)
      const late = event('subscription.canceled', {
        id: 'sub_1',
        status: 'canceled',
        occurredAt: minutes(20),
      })
      assert.equal((await billing.applyEvent(late, 'paddle')).outcome, 'ignored')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_2')
    })

    it("the account's own checkout replaces a stranger's subscription that bound while it was on Free", async () => {
      // The owner opens a checkout burrowd made while the account is on Free.
      await billing.recordCheckout(accountId, 'txn_own', 'paddle')
      // Meanwhile a stranger pays a checkout of their own naming the account (Free: it binds).
      const foreign = { id: 'sub_foreign', customerId: 'ctm_stranger' }
      await billing.applyEvent(event('subscription.created', foreign), 'paddle')
      // The owner pays: the subscription burrowd's checkout made is the account's.
      now = minutes(10)
      const own = event('subscription.created', {
        id: 'sub_own',
        customerId: 'ctm_owner',
        transactionId: 'txn_own',
        priceId: TEST_PRICES.scale_monthly,
      })
      assert.equal((await billing.applyEvent(own, 'paddle')).outcome, 'applied')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_own')
      // The stranger cancelling theirs no longer ends the plan the owner pays for.
      now = minutes(20)
      const canceled = event('subscription.canceled', {
        ...foreign,
        status: 'canceled',
        occurredAt: minutes(20),
      })
      assert.equal((await billing.applyEvent(canceled, 'paddle')).outcome, 'ignored')
      const row = await store.db
        .selectFrom('accounts')
        .select(['plan', 'plan_expires_at'])
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
      assert.deepEqual(row, { plan: 'scale', plan_expires_at: null })
    })

    it("the account's own checkout replaces a stranger's subscription even when the stranger's news is later", async () => {
      await billing.recordCheckout(accountId, 'txn_own', 'paddle')
      const foreign = { id: 'sub_foreign', customerId: 'ctm_stranger' }
      await billing.applyEvent(event('subscription.created', foreign), 'paddle')
      // The owner pays at minute 10; an update of the stranger's subscription at minute 11 (any
      // change the stranger makes in Paddle's portal) is delivered before the owner's creation.
      now = minutes(12)
      const poke = event('subscription.updated', { ...foreign, occurredAt: minutes(11) })
      assert.equal((await billing.applyEvent(poke, 'paddle')).outcome, 'applied')
      const own = event('subscription.created', {
        id: 'sub_own',
        customerId: 'ctm_owner',
        transactionId: 'txn_own',
        priceId: TEST_PRICES.scale_monthly,
        occurredAt: minutes(10),
      })
      assert.equal((await billing.applyEvent(own, 'paddle')).outcome, 'applied')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_own')
      // The stranger cancelling theirs does not end the plan the owner pays for.
      now = minutes(20)
      const canceled = event('subscription.canceled', { ...foreign, status: 'canceled' })
      assert.equal((await billing.applyEvent(canceled, 'paddle')).outcome, 'ignored')
      const row = await store.db
        .selectFrom('accounts')
        .select('plan')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
      assert.equal(row.plan, 'scale')
    })

    it("an ended subscription's later end does not make the account's next subscription stale", async () => {
      // sub_1 is cancelled at the end of its period, minute 15; from then on the account is Free.
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_1', scheduledCancelAt: minutes(15) }),
        'paddle',
      )
      // At minute 20 the owner buys again through burrowd's checkout (sub_2). Paddle processed
      // sub_1's cancellation a little late (minute 25) and delivers it before sub_2's creation.
      await billing.recordCheckout(accountId, 'txn_2', 'paddle')
      now = minutes(26)
      const ended = event('subscription.canceled', {
        id: 'sub_1',
        status: 'canceled',
        occurredAt: minutes(25),
      })
      assert.equal((await billing.applyEvent(ended, 'paddle')).outcome, 'applied')
      const created = event('subscription.created', {
        id: 'sub_2',
        transactionId: 'txn_2',
        occurredAt: minutes(20),
      })
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'applied')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_2')
      const row = await store.db
        .selectFrom('accounts')
        .select('plan')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
      assert.equal(row.plan, 'pro')
      // sub_1's own older news stays stale.
      const older = event('subscription.updated', { id: 'sub_1', occurredAt: minutes(5) })
      assert.equal((await billing.applyEvent(older, 'paddle')).outcome, 'stale')
    })

    it("an ended subscription's news from before its recorded end does not replace the next one", async () => {
      // As above: sub_1 ends at minute 15 (processed by Paddle at 25), sub_2 is bought at 20.
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_1', scheduledCancelAt: minutes(15) }),
        'paddle',
      )
      await billing.recordCheckout(accountId, 'txn_2', 'paddle')
      now = minutes(26)
      const ended = event('subscription.canceled', {
        id: 'sub_1',
        status: 'canceled',
        occurredAt: minutes(25),
      })
      assert.equal((await billing.applyEvent(ended, 'paddle')).outcome, 'applied')
      const created = event('subscription.created', {
        id: 'sub_2',
        transactionId: 'txn_2',
        occurredAt: minutes(20),
      })
      assert.equal((await billing.applyEvent(created, 'paddle')).outcome, 'applied')
      // An update of sub_1 from minute 22, before its recorded end, retried by Paddle.
      const older = event('subscription.updated', {
        id: 'sub_1',
        scheduledCancelAt: minutes(15),
        occurredAt: minutes(22),
      })
      assert.equal((await billing.applyEvent(older, 'paddle')).outcome, 'stale')
      assert.equal((await billing.getSubscription(accountId))?.subscriptionId, 'sub_2')
      const row = await store.db
        .selectFrom('accounts')
        .select('plan')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
      assert.equal(row.plan, 'pro')
    })

    it("a replaced subscription's old news stays stale once the account's next one ended", async () => {
      await billing.applyEvent(event('subscription.created', { id: 'sub_1' }), 'paddle')
      now = minutes(10)
      await billing.recordCheckout(accountId, 'txn_2', 'paddle')
      await billing.applyEvent(
        event('subscription.created', { id: 'sub_2', transactionId: 'txn_2' }),
        'paddle',
      )
      // sub_1 is cancelled (ignored: sub_2 pays), then sub_2 ends too: the account is Free.
      now = minutes(12)
      const firstEnds = event('subscription.canceled', { id: 'sub_1', status: 'canceled' })
      assert.equal((await billing.applyEvent(firstEnds, 'paddle')).outcome, 'ignored')
      now = minutes(30)
      const secondEnds = event('subscription.canceled', { id: 'sub_2', status: 'canceled' })
      assert.equal((await billing.applyEvent(secondEnds, 'paddle')).outcome, 'applied')
      // An update of sub_1 from before its cancellation, retried by Paddle, arrives now.
      const old = event('subscription.updated', { id: 'sub_1', occurredAt: minutes(11) })
      assert.equal((await billing.applyEvent(old, 'paddle')).outcome, 'stale')
      const row = await store.db
        .selectFrom('accounts')
        .select('plan')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
      assert.equal(row.plan, 'free')
    })

    it('an event racing its subscription.created (PostgreSQL) is applied, not recorded "ignored"', async (t) => {
      if (backend.name !== 'postgres') return t.skip('row locks: PostgreSQL only')
      // An operator-granted account buys through burrowd's checkout.
      await store.db
        .updateTable('accounts')
        .set({ plan: 'pro' })
        .where('id', '=', accountId)
        .execute()
      await billing.recordCheckout(accountId, 'txn_1', 'paddle')
      // Something else holds the account row for a moment (any billing event, a tunnel create).
      const release = defer()
      const held = defer()
      const holder = store.db.transaction().execute(async (trx) => {
        await sql`select id from accounts where id = ${accountId} for update`.execute(trx)
        held.resolve()
        await release.promise
      })
      await held.promise
      const created = billing.applyEvent(
        event('subscription.created', {
          id: 'sub_1',
          transactionId: 'txn_1',
          eventId: 'evt_created',
        }),
        'paddle',
      )
      await new Promise((r) => setTimeout(r, 300))
      // Paddle sends subscription.updated (a scheduled change, say) right after.
      const updated = billing.applyEvent(
        event('subscription.updated', {
          id: 'sub_1',
          eventId: 'evt_updated',
          scheduledCancelAt: PERIOD_END,
          occurredAt: minutes(1),
        }),
        'paddle',
      )
      await new Promise((r) => setTimeout(r, 300))
      release.resolve()
      await holder
      assert.equal((await created).outcome, 'applied', 'created')
      // The subscription is bound to the account, yet its update is recorded "ignored"
      // (the "refused" lookup finds the subscription.created that bound it).
      assert.equal((await updated).outcome, 'applied', 'the update')
    })
  })
}
