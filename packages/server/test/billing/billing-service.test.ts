/**
 * The whole billing flow against the Paddle stand-in on its own port, with webhooks arriving
 * signed at a real webhook route over a real store: checkout link → checkout page → Pay →
 * webhooks → Pro with the chosen cycle; switch cycle, cancel (kept until the period ends),
 * undo, change plan, period end → Free; duplicates and out-of-order deliveries; a failed
 * payment and an unpaid end; provider errors.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { BillingError } from '../../src/billing/billing-error.js'
import type { BillingErrorCode } from '../../src/billing/billing-error.js'
import { signPaddle } from '../../src/billing/paddle-signature.js'
import type { BillingStack } from '../helpers/billing-stack.js'
import { STACK_SECRET, startBillingStack } from '../helpers/billing-stack.js'
import { eventBody, subscriptionData } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'

const T0 = new Date('2026-01-31T12:00:00.000Z')
const SUCCESS = 'http://burrow.test/dashboard/billing?paid=1'

async function rejectsWith(promise: Promise<unknown>, code: BillingErrorCode, fragment: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof BillingError, `expected BillingError, got ${String(error)}`)
    assert.equal(error.code, code)
    assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
    return true
  })
}

for (const backend of testBackends()) {
  describe(`billing flow against the Paddle stand-in on ${backend.name}`, () => {
    let stack: BillingStack
    let now: Date
    let account: { id: string; email: string }

    const tick = (minutes: number) => {
      now = new Date(now.getTime() + minutes * 60_000)
    }

    /** Open the checkout link, press Pay, and return where the browser was sent. */
    const buy = async (plan: 'pro' | 'scale', cycle: 'monthly' | 'annual') => {
      const link = await stack.billing.checkoutUrl(account, plan, cycle, SUCCESS)
      const page = await fetch(link)
      assert.equal(page.status, 200)
      const html = await page.text()
      const form = /<form method="post" action="([^"]+)">/.exec(html)
      assert.ok(form, 'the page has a Pay form')
      const fields = new URLSearchParams()
      for (const [, name, value] of html.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
      )) {
        fields.set(name!, value!.replaceAll('&amp;', '&'))
      }
      const paid = await fetch(new URL(form[1]!, link), {
        method: 'POST',
        body: fields,
        redirect: 'manual',
      })
      return { link, html, paid }
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

    it('checkout → page → Pay → signed webhooks → Pro with the chosen cycle', async () => {
      const { link, html, paid } = await buy('pro', 'annual')
      assert.ok(link.startsWith(`${stack.paddleUrl}/checkout?_ptxn=txn_`), link)
      assert.equal(new URL(link).searchParams.get('success_url'), SUCCESS)
      assert.match(html, /Development checkout: no money moves/)
      assert.match(html, /Burrow Pro/)
      assert.match(html, /Annual/)
      assert.match(html, /\$120\.00 per year/)
      assert.match(html, /ann@example\.com/)
      assert.doesNotMatch(html, /card/i)

      assert.equal(paid.status, 303)
      assert.equal(paid.headers.get('location'), SUCCESS)
      // The stand-in answers only after its webhooks were delivered.
      assert.deepEqual(
        stack.received.map((w) => [w.eventType, w.status, w.outcome]),
        [
          ['transaction.completed', 200, 'ignored'],
          ['subscription.created', 200, 'applied'],
          ['subscription.activated', 200, 'applied'],
        ],
      )
      const status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'pro')
      assert.equal(status.state, 'paid')
      assert.equal(status.subscription?.cycle, 'annual')
      assert.deepEqual(status.renewsAt, new Date('2027-01-31T12:00:00.000Z'))
      assert.deepEqual(stack.changed, [account.id, account.id])
      assert.equal((await stack.store.getAccountById(account.id))?.plan, 'pro')
      // The subscription carries our account id and the customer made from the email.
      const sub = stack.paddle.subscriptionOf(account.id)
      assert.ok(sub)
      assert.equal(stack.paddle.customers.get(sub.customerId)?.email, 'ann@example.com')
    })

    it('refuses a second checkout while subscribed, and a second payment of one checkout', async () => {
      const { link } = await buy('pro', 'monthly')
      await rejectsWith(
        stack.billing.checkoutUrl(account, 'scale', 'monthly', SUCCESS),
        'already_subscribed',
        'change its plan or billing cycle',
      )
      assert.equal((await fetch(link)).status, 409)
    })

    it('switches cycle and plan; the webhook that follows agrees', async () => {
      await buy('pro', 'monthly')
      tick(60)
      const switched = await stack.billing.switchCycle(account.id, 'annual')
      assert.equal(switched.cycle, 'annual')
      assert.equal(switched.plan, 'pro')
      // The annual period starts at the switch.
      assert.deepEqual(switched.periodEndsAt, new Date('2027-01-31T13:00:00.000Z'))
      await stack.paddle.idle()
      assert.deepEqual(stack.received.at(-1), {
        eventType: 'subscription.updated',
        eventId: stack.paddle.webhooks.at(-1)!.event.event_id,
        status: 200,
        outcome: 'applied',
      })

      tick(60)
      const upgraded = await stack.billing.changePlan(account.id, 'scale')
      assert.equal(upgraded.plan, 'scale')
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
      await rejectsWith(stack.billing.changePlan(account.id, 'scale'), 'same_plan', 'already scale')
    })

    it('cancel keeps the plan until the period ends; the period end makes it Free', async () => {
      await buy('pro', 'monthly')
      const periodEnd = new Date('2026-02-28T12:00:00.000Z') // Jan 31 + 1 month, clamped
      tick(60)
      const cancelled = await stack.billing.cancel(account.id)
      assert.equal(cancelled.state, 'paid_until')
      assert.deepEqual(cancelled.cancelsAt, periodEnd)
      await stack.paddle.idle()
      const updated = stack.received.at(-1)!
      assert.equal(updated.eventType, 'subscription.updated')
      assert.equal(updated.status, 200)
      let status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'pro')
      assert.deepEqual(status.endsAt, periodEnd)

      now = periodEnd
      assert.equal((await stack.billing.status(account.id)).plan, 'free', 'Free without a webhook')
      await stack.paddle.endPeriod(cancelled.subscriptionId)
      assert.deepEqual(
        [stack.received.at(-1)!.eventType, stack.received.at(-1)!.outcome],
        ['subscription.canceled', 'applied'],
      )
      status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'free')
      assert.equal(status.subscription?.status, 'canceled')
      assert.equal((await stack.store.getAccountById(account.id))?.plan, 'free')
      await rejectsWith(
        stack.billing.cancel(account.id),
        'no_subscription',
        'no active subscription',
      )

      // Free again: a new checkout is allowed.
      const again = await buy('scale', 'monthly')
      assert.equal(again.paid.status, 303)
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
    })

    it('undoes a cancellation before it takes effect', async () => {
      await buy('pro', 'monthly')
      tick(1)
      await stack.billing.cancel(account.id)
      tick(1)
      const kept = await stack.billing.undoCancel(account.id)
      assert.equal(kept.state, 'paid')
      assert.equal(kept.cancelsAt, null)
      assert.equal((await stack.billing.status(account.id)).endsAt, null)
      await rejectsWith(stack.billing.undoCancel(account.id), 'same_plan', 'not cancelled')
    })

    it('changing plan while cancelled also withdraws the cancellation', async () => {
      await buy('pro', 'monthly')
      tick(1)
      await stack.billing.cancel(account.id)
      tick(1)
      const changed = await stack.billing.changePlan(account.id, 'scale')
      assert.equal(changed.state, 'paid')
      assert.equal(stack.paddle.subscriptionOf(account.id)?.scheduledChange, null)
    })

    it('previews and applies the proration of Pro → Scale and back, as the provider bills it', async () => {
      await buy('pro', 'monthly')
      // The period is Jan 31 → Feb 28 (28 days); a week later three quarters of it are left.
      tick(7 * 24 * 60)
      const up = await stack.billing.previewPlanChange(account.id, 'scale')
      assert.equal(up.subscription.plan, 'pro')
      assert.deepEqual(up.proration, {
        currency: 'USD',
        creditCents: 900,
        chargeCents: 2925,
        action: 'charge',
        amountCents: 2025,
      })
      assert.equal(
        (await stack.billing.status(account.id)).plan,
        'pro',
        'a preview changes nothing',
      )
      assert.equal(stack.paddle.prorations.length, 0)
      const scale = await stack.billing.changePlan(account.id, 'scale')
      assert.equal(scale.plan, 'scale')
      assert.equal(scale.cycle, 'monthly')
      assert.deepEqual(scale.periodEndsAt, new Date('2026-02-28T12:00:00.000Z'), 'same period')
      const billed = stack.paddle.prorations.at(-1)!
      assert.equal(billed.action, 'charge')
      assert.equal(billed.amountCents, 2025)

      const down = await stack.billing.previewPlanChange(account.id, 'pro')
      assert.deepEqual(down.proration, {
        currency: 'USD',
        creditCents: 2925,
        chargeCents: 900,
        action: 'credit',
        amountCents: 2025,
      })
      const pro = await stack.billing.changePlan(account.id, 'pro')
      assert.equal(pro.plan, 'pro')
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
      assert.equal(stack.paddle.prorations.at(-1)!.action, 'credit')
      await stack.paddle.idle()
      assert.equal(stack.received.at(-1)!.eventType, 'subscription.updated')
      await rejectsWith(
        stack.billing.previewPlanChange(account.id, 'pro'),
        'same_plan',
        'already pro',
      )
    })

    it('refuses to preview a plan change without a live subscription', async () => {
      await rejectsWith(
        stack.billing.previewPlanChange(account.id, 'scale'),
        'no_subscription',
        'no active subscription',
      )
    })

    it('a redelivered webhook is a harmless duplicate', async () => {
      await buy('pro', 'monthly')
      const activated = stack.paddle.webhooks.find(
        (w) => w.event.event_type === 'subscription.activated',
      )!
      await stack.paddle.resend(activated.event.event_id)
      assert.deepEqual(
        [stack.received.at(-1)!.eventId, stack.received.at(-1)!.outcome],
        [activated.event.event_id, 'duplicate'],
      )
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
    })

    it('webhooks delivered out of order leave the newest state', async () => {
      await buy('pro', 'monthly')
      // Burrow learns of these changes only through webhooks (made in Paddle's dashboard).
      stack.paddle.holdWebhooks()
      const sub = stack.paddle.subscriptionOf(account.id)!
      tick(1)
      await stack.paddle.paymentFailed(sub.id)
      tick(1)
      await stack.paddle.paymentRecovered(sub.id)
      await stack.paddle.releaseWebhooks('reverse')
      const outcomes = stack.received.slice(3).map((w) => [w.eventType, w.outcome])
      assert.deepEqual(outcomes, [
        ['subscription.updated', 'applied'],
        ['transaction.completed', 'ignored'],
        ['subscription.past_due', 'stale'],
        ['transaction.payment_failed', 'ignored'],
      ])
      const status = await stack.billing.status(account.id)
      assert.equal(status.state, 'paid')
      assert.equal(status.plan, 'pro')
    })

    it('a failed payment keeps paid limits to the period end; an unpaid end is Free at once', async () => {
      await buy('scale', 'monthly')
      const sub = stack.paddle.subscriptionOf(account.id)!
      now = new Date('2026-02-28T12:00:01.000Z')
      await stack.paddle.paymentFailed(sub.id)
      const status = await stack.billing.status(account.id)
      assert.equal(status.state, 'past_due')
      assert.equal(status.plan, 'scale')
      assert.deepEqual(status.endsAt, new Date('2026-03-28T12:00:00.000Z'))

      tick(60 * 24 * 7)
      await stack.paddle.expire(sub.id)
      const ended = await stack.billing.status(account.id)
      assert.equal(ended.plan, 'free')
      assert.equal(ended.state, 'free')
    })

    it("a stranger's checkout naming an operator-granted account neither binds nor ends its plan", async () => {
      await stack.store.db
        .updateTable('accounts')
        .set({ plan: 'scale', plan_expires_at: null })
        .where('id', '=', account.id)
        .execute()
      // What Paddle.js lets anyone do with the seller's client token: a checkout of their own
      // whose custom data names the account.
      const stranger = stack.paddle.addCustomer('mallory@example.com')
      const theirs = stack.paddle.addTransaction({
        price: stack.paddle.prices.get([...stack.paddle.prices.keys()][0]!)!,
        customerId: stranger.id,
        customData: { account_id: account.id },
        base: stack.paddleUrl,
      })
      const sub = await stack.paddle.pay(theirs.id)
      tick(1)
      await stack.paddle.expire(sub.id)
      assert.deepEqual(
        stack.received.map((w) => [w.eventType, w.status, w.outcome]),
        [
          ['transaction.completed', 200, 'ignored'],
          ['subscription.created', 200, 'ignored'],
          ['subscription.activated', 200, 'ignored'],
          // It gives the account nothing: burrowd cancels it at the end of its period.
          ['subscription.updated', 200, 'ignored'],
          ['subscription.canceled', 200, 'ignored'],
        ],
      )
      const kept = await stack.billing.status(account.id)
      assert.equal(kept.plan, 'scale')
      assert.equal(kept.subscription, null)
      assert.deepEqual(stack.changed, [])

      // The owner's own checkout through burrowd binds.
      tick(1)
      await buy('pro', 'monthly')
      const bought = await stack.billing.status(account.id)
      assert.equal(bought.plan, 'pro')
      assert.equal(bought.state, 'paid')
      assert.notEqual(bought.subscription?.subscriptionId, sub.id)
    })

    it("a stranger's subscription that named the account on Free lends its customer to no later checkout", async () => {
      // What Paddle.js lets anyone do: a checkout of their own whose custom data names the
      // account; on Free it binds (it costs the account nothing), then its payer ends it.
      const stranger = stack.paddle.addCustomer('mallory@example.com')
      const theirs = stack.paddle.addTransaction({
        price: stack.paddle.prices.get([...stack.paddle.prices.keys()][0]!)!,
        customerId: stranger.id,
        customData: { account_id: account.id },
        base: stack.paddleUrl,
      })
      const sub = await stack.paddle.pay(theirs.id)
      assert.equal((await stack.billing.status(account.id)).subscription?.subscriptionId, sub.id)
      tick(1)
      await stack.paddle.expire(sub.id)
      assert.equal((await stack.billing.status(account.id)).state, 'free')
      // The owner's checkout is for the owner's customer: not the stranger's, who would get its
      // receipts and could cancel it from Paddle's customer portal.
      tick(1)
      const { html } = await buy('pro', 'monthly')
      assert.match(html, /ann@example\.com/)
      assert.doesNotMatch(html, /mallory/)
      const bought = await stack.billing.status(account.id)
      assert.equal(bought.state, 'paid')
      assert.equal(
        stack.paddle.customers.get(bought.subscription!.customerId!)?.email,
        'ann@example.com',
      )
    })

    it('asks Paddle to send again an event that overtook the creation of a subscription for a paying account', async () => {
      await stack.store.db
        .updateTable('accounts')
        .set({ plan: 'scale', plan_expires_at: null })
        .where('id', '=', account.id)
        .execute()
      const body = JSON.stringify(
        eventBody(
          'subscription.activated',
          subscriptionData({ id: 'sub_early', accountId: account.id, priceId: 'pri_unused' }),
        ),
      )
      const res = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'paddle-signature': signPaddle(STACK_SECRET, Math.floor(now.getTime() / 1000), body),
        },
        body,
      })
      assert.equal(res.status, 409)
      assert.equal(((await res.json()) as { error: string }).error, 'unverified_subscription')
      const recorded = await stack.store.db.selectFrom('billing_events').selectAll().execute()
      assert.deepEqual(recorded, [], 'not recorded, so the retry is not a duplicate')
    })

    it('retries a webhook the endpoint failed to take', async () => {
      stack.failNext(2)
      await buy('pro', 'monthly')
      const created = stack.paddle.webhooks[0]!
      assert.equal(created.attempts, 3)
      assert.equal(created.delivered, true)
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
    })

    it('refreshes the subscription from the provider when asked', async () => {
      await buy('pro', 'monthly')
      // A change whose webhook never arrives.
      stack.paddle.holdWebhooks()
      tick(1)
      await stack.paddle.expire(stack.paddle.subscriptionOf(account.id)!.id)
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
      const refreshed = await stack.billing.refresh(account.id)
      assert.equal(refreshed?.status, 'canceled')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
    })

    it('turns provider failures into BillingError provider with the reason', async () => {
      await buy('pro', 'monthly')
      stack.paddle.subscriptions.clear()
      await rejectsWith(stack.billing.cancel(account.id), 'provider', 'not_found')
      await rejectsWith(stack.billing.switchCycle(account.id, 'annual'), 'provider', '404')
    })
  })
}
