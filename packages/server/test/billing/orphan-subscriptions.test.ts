/**
 * A subscription that gives its account nothing, because another one holds the account's plan,
 * is cancelled at Paddle: before, it went on renewing with nothing in burrowd to cancel it (two
 * checkout links paid within seconds, a stranger's subscription naming a paid account, an earlier
 * one resuming, one the account's own checkout replaced). The Paddle stand-in on its own port,
 * webhooks signed to a real route over a real store.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { BillingCycle, PaidPlanId } from '../../src/billing/billing-config.js'
import { priceKey } from '../../src/billing/billing-config.js'
import type { StandInSubscription } from '../../src/billing/stand-in-entities.js'
import type { BillingStack } from '../helpers/billing-stack.js'
import { startBillingStack } from '../helpers/billing-stack.js'
import { TEST_PRICES } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'

const T0 = new Date('2026-01-31T12:00:00.000Z')
const SUCCESS = 'http://burrow.test/dashboard/billing?paid=1'
const HOUR = 60 * 60_000
const DAY = 24 * HOUR

for (const backend of testBackends()) {
  describe(`subscriptions that give their account nothing on ${backend.name}`, () => {
    let stack: BillingStack
    let now: Date
    let account: { id: string; email: string }

    const later = (ms: number) => {
      now = new Date(now.getTime() + ms)
    }
    const link = (plan: PaidPlanId, cycle: BillingCycle) =>
      stack.billing.checkoutUrl(account, plan, cycle, SUCCESS)
    const pay = (url: string): Promise<StandInSubscription> =>
      stack.paddle.pay(new URL(url).searchParams.get('_ptxn')!)
    const strangerBuys = async (plan: PaidPlanId) => {
      const customer = stack.paddle.addCustomer(account.email)
      const txn = stack.paddle.addTransaction({
        price: stack.paddle.prices.get(TEST_PRICES[priceKey(plan, 'monthly')])!,
        customerId: customer.id,
        customData: { account_id: account.id },
        base: stack.paddleUrl,
      })
      return stack.paddle.pay(txn.id)
    }
    const boundId = async () =>
      (await stack.billing.status(account.id)).subscription?.subscriptionId
    /** The subscriptions at Paddle that will renew: neither canceled nor cancelling. */
    const renewing = () =>
      [...stack.paddle.subscriptions.values()]
        .filter((s) => s.status !== 'canceled' && s.scheduledChange?.action !== 'cancel')
        .map((s) => s.id)
    const orphansKept = async () =>
      (
        await stack.store.db
          .selectFrom('orphan_subscriptions')
          .select('subscription_id')
          .where('settled_at', 'is', null)
          .execute()
      ).length

    beforeEach(async () => {
      now = T0
      stack = await startBillingStack(backend, () => now)
      const created = await stack.store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      account = { id: created.id, email: created.email }
    })
    afterEach(async () => {
      await stack.close()
    })

    it('two links paid before either webhook arrived: one plan, and only its subscription renews', async () => {
      const pro = await link('pro', 'monthly')
      const scale = await link('scale', 'monthly')
      stack.paddle.holdWebhooks()
      const first = pay(pro)
      const second = pay(scale)
      await stack.paddle.releaseWebhooks()
      const [a, b] = await Promise.all([first, second])
      await stack.paddle.idle()
      const bound = await boundId()
      assert.ok(bound === a.id || bound === b.id)
      assert.deepEqual(renewing(), [bound])
      // The other runs to the end of the period paid for, then ends; the plan stays.
      const other = bound === a.id ? b : a
      assert.equal(stack.paddle.subscriptions.get(other.id)?.status, 'active')
      now = new Date(other.periodEnd!.getTime() + 1000)
      await stack.paddle.endPeriod(other.id)
      assert.equal(stack.paddle.subscriptions.get(other.id)?.status, 'canceled')
      assert.equal(await boundId(), bound)
      assert.equal((await stack.billing.status(account.id)).state, 'paid')
      assert.equal(await orphansKept(), 0)
    })

    it("a stranger's subscription naming a paid account is cancelled; the owner's plan stays", async () => {
      const own = await pay(await link('scale', 'annual'))
      later(DAY)
      const theirs = await strangerBuys('pro')
      await stack.paddle.idle()
      assert.equal(await boundId(), own.id)
      assert.deepEqual(renewing(), [own.id])
      assert.equal(stack.paddle.subscriptions.get(theirs.id)?.scheduledChange?.action, 'cancel')
    })

    it("a stranger's subscription that bound on Free is cancelled when the owner's checkout replaces it", async () => {
      const theirs = await strangerBuys('pro')
      assert.equal(await boundId(), theirs.id)
      later(DAY)
      const own = await pay(await link('scale', 'monthly'))
      await stack.paddle.idle()
      assert.equal(await boundId(), own.id)
      assert.deepEqual(renewing(), [own.id])
    })

    it('an earlier subscription resuming while another holds the plan is cancelled', async () => {
      const first = await pay(await link('pro', 'monthly'))
      later(DAY)
      await stack.paddle.pause(first.id)
      later(DAY)
      const second = await pay(await link('scale', 'monthly'))
      later(DAY)
      await stack.paddle.resume(first.id)
      await stack.paddle.idle()
      assert.equal(await boundId(), second.id)
      assert.deepEqual(renewing(), [second.id])
    })

    it("the account's own subscription, its creation delivered over an hour after its other news, is not cancelled", async () => {
      // A stranger's subscription bound while the account was on Free: it is on Pro.
      const theirs = await strangerBuys('pro')
      later(DAY)
      const url = await link('scale', 'monthly')
      stack.paddle.holdWebhooks()
      const own = await pay(url)
      // burrowd was away for two hours; Paddle's retries then came in another order, the
      // activation (which does not say which checkout made it) before the creation.
      later(2 * HOUR)
      await stack.paddle.releaseWebhooks('reverse')
      await stack.paddle.idle()
      assert.equal(await boundId(), own.id)
      assert.equal(stack.paddle.subscriptions.get(own.id)?.scheduledChange, null)
      assert.deepEqual(renewing(), [own.id])
      assert.equal(stack.paddle.subscriptions.get(theirs.id)?.scheduledChange?.action, 'cancel')
      assert.equal((await stack.billing.status(account.id)).state, 'paid')
    })

    it('a cancellation Paddle fails is made again at the next webhook', async () => {
      const own = await pay(await link('scale', 'annual'))
      later(DAY)
      // Both webhooks of the stranger's payment find the orphan; Paddle fails every cancel. The
      // events are applied all the same: the webhooks do not fail for it.
      stack.paddle.subscriptionCancelFaults = 1000
      const theirs = await strangerBuys('pro')
      await stack.paddle.idle()
      stack.paddle.subscriptionCancelFaults = 0
      assert.ok(stack.received.every((w) => w.status === 200))
      assert.equal(await orphansKept(), 1)
      assert.deepEqual(renewing().sort(), [own.id, theirs.id].sort())
      // The next webhook, about anything, cancels what was kept.
      later(DAY)
      await stack.billing.cancel(account.id)
      await stack.paddle.idle()
      assert.equal(await orphansKept(), 0)
      assert.deepEqual(renewing(), [])
      assert.equal(stack.paddle.subscriptions.get(theirs.id)?.scheduledChange?.action, 'cancel')
      assert.equal(await boundId(), own.id)
    })

    it('a cancellation Paddle refuses while the subscription is about to renew is made again later', async () => {
      const own = await pay(await link('scale', 'annual'))
      later(DAY)
      // Paddle refuses every change in the 30 minutes before a renewal (409), then takes them.
      stack.paddle.subscriptionCancelLocks = 1000
      const theirs = await strangerBuys('pro')
      await stack.paddle.idle()
      stack.paddle.subscriptionCancelLocks = 0
      assert.equal(await orphansKept(), 1)
      // The next webhook, a duplicate too, cancels it.
      later(HOUR)
      await stack.paddle.resend(stack.paddle.webhooks.at(-1)!.event.event_id)
      assert.equal(await orphansKept(), 0)
      assert.equal(stack.paddle.subscriptions.get(theirs.id)?.scheduledChange?.action, 'cancel')
      assert.deepEqual(renewing(), [own.id])
    })
  })
}
