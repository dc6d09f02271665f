/**
 * Subscriptions the account did not buy through its own checkout (a stranger's naming it, or one
 * of its own it has since replaced) neither take the plan of the subscription its billing page
 * manages nor keep the account from checking out its own (the Paddle stand-in on its own port,
 * webhooks signed to a real route over a real store).
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
const DAY = 24 * 60 * 60_000

for (const backend of testBackends()) {
  describe(`subscriptions not from the account's checkout on ${backend.name}`, () => {
    let stack: BillingStack
    let now: Date
    let account: { id: string; email: string }

    const later = (ms: number) => {
      now = new Date(now.getTime() + ms)
    }

    /** Open a checkout link burrowd made, press Pay; the subscription it made. */
    const pay = async (link: string): Promise<StandInSubscription> => {
      const txn = new URL(link).searchParams.get('_ptxn')!
      return stack.paddle.pay(txn)
    }
    const buy = async (plan: PaidPlanId, cycle: BillingCycle) =>
      pay(await stack.billing.checkoutUrl(account, plan, cycle, SUCCESS))

    /**
     * What Paddle.js lets anyone do with the seller's client token: a checkout of their own whose
     * custom data names the account, typing the owner's email, so that Paddle takes the owner's
     * customer for it; paid with the stranger's card.
     */
    const strangerBuys = async (plan: PaidPlanId, cycle: BillingCycle) => {
      const customer =
        [...stack.paddle.customers.values()].find((c) => c.email === account.email) ??
        stack.paddle.addCustomer(account.email)
      const txn = stack.paddle.addTransaction({
        price: stack.paddle.prices.get(TEST_PRICES[priceKey(plan, cycle)])!,
        customerId: customer.id,
        customData: { account_id: account.id },
        base: stack.paddleUrl,
      })
      return stack.paddle.pay(txn.id)
    }

    const bound = async () => {
      const status = await stack.billing.status(account.id)
      return { plan: status.plan, id: status.subscription?.subscriptionId }
    }

    beforeEach(async () => {
      now = T0
      stack = await startBillingStack(backend, () => now)
      const created = await stack.store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      account = { id: created.id, email: created.email }
    })
    afterEach(async () => {
      await stack.close()
    })

    it("a stranger's subscription under the owner's customer, recovering from past_due, does not replace the owner's", async () => {
      // On Free, a stranger's Pro naming the account binds (it costs the account nothing).
      const theirs = await strangerBuys('pro', 'monthly')
      assert.deepEqual(await bound(), { plan: 'pro', id: theirs.id })
      // Its renewal fails; past_due keeps Pro to the end of the unpaid period, then Free.
      now = new Date(theirs.periodEnd!.getTime() + 1000)
      await stack.paddle.paymentFailed(theirs.id)
      // (The failed renewal started the next period: its end is the unpaid period's.)
      now = new Date(theirs.periodEnd!.getTime() + 1000)
      assert.equal((await stack.billing.status(account.id)).state, 'free')
      // The owner buys a year of Scale through burrowd's checkout.
      const own = await buy('scale', 'annual')
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
      // The stranger's payment goes through at last.
      later(DAY)
      await stack.paddle.paymentRecovered(theirs.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
      // Ending it (the stranger's card refused, dunning gives up) does not end the owner's plan.
      later(DAY)
      await stack.paddle.expire(theirs.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
    })

    it("a stranger's subscription under the owner's customer, renewing, does not replace the owner's", async () => {
      // The owner opens a checkout on Free; meanwhile a stranger's Pro naming the account binds.
      const link = await stack.billing.checkoutUrl(account, 'scale', 'annual', SUCCESS)
      const theirs = await strangerBuys('pro', 'monthly')
      later(60_000)
      const own = await pay(link)
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
      // A month on, the stranger's subscription renews.
      now = new Date(theirs.periodEnd!.getTime() + 1000)
      await stack.paddle.endPeriod(theirs.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
    })

    it('an earlier subscription of the account resuming does not replace the one it bought since', async () => {
      const first = await buy('pro', 'monthly')
      later(DAY)
      await stack.paddle.pause(first.id)
      assert.equal((await stack.billing.status(account.id)).state, 'free')
      later(DAY)
      const second = await buy('scale', 'monthly')
      assert.deepEqual(await bound(), { plan: 'scale', id: second.id })
      later(DAY)
      await stack.paddle.resume(first.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: second.id })
      // The billing page still manages the subscription the account bought last.
      const cancelled = await stack.billing.cancel(account.id)
      assert.equal(cancelled.subscriptionId, second.id)
      assert.ok(stack.paddle.subscriptions.get(second.id)?.scheduledChange)
    })

    it('an earlier subscription of the account recovering from past_due does not replace the one it bought since', async () => {
      const first = await buy('pro', 'monthly')
      now = new Date(first.periodEnd!.getTime() + 1000)
      await stack.paddle.paymentFailed(first.id)
      // Past the end of the unpaid period: Free, and the owner buys again.
      now = new Date(first.periodEnd!.getTime() + 1000)
      assert.equal((await stack.billing.status(account.id)).state, 'free')
      const second = await buy('scale', 'annual')
      later(DAY)
      await stack.paddle.paymentRecovered(first.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: second.id })
    })

    it("a stranger's subscription that bound on Free does not keep the owner from checking out", async () => {
      const theirs = await strangerBuys('pro', 'annual')
      assert.deepEqual(await bound(), { plan: 'pro', id: theirs.id })
      later(DAY)
      const own = await buy('scale', 'monthly')
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
      // The stranger's news changes nothing any more; the owner's own is refused a second one.
      later(DAY)
      await stack.paddle.expire(theirs.id)
      assert.deepEqual(await bound(), { plan: 'scale', id: own.id })
      await assert.rejects(stack.billing.checkoutUrl(account, 'pro', 'monthly', SUCCESS), {
        code: 'already_subscribed',
      })
    })

    it("the account's own subscription still refuses a second checkout when its creation came after its other news", async () => {
      const link = await stack.billing.checkoutUrl(account, 'pro', 'monthly', SUCCESS)
      // Paddle does not promise order: subscription.activated binds it first (the account is on
      // Free), by its custom data; subscription.created, naming burrowd's checkout, comes after.
      stack.paddle.holdWebhooks()
      const own = await pay(link)
      await stack.paddle.releaseWebhooks('reverse')
      assert.deepEqual(
        stack.received.map((w) => [w.eventType, w.outcome]),
        [
          ['subscription.activated', 'applied'],
          ['subscription.created', 'applied'],
          ['transaction.completed', 'ignored'],
        ],
      )
      assert.deepEqual(await bound(), { plan: 'pro', id: own.id })
      await assert.rejects(stack.billing.checkoutUrl(account, 'scale', 'monthly', SUCCESS), {
        code: 'already_subscribed',
      })
    })
  })
}
