/**
 * A customer who buys a year of Scale and then disputes the payment with their bank gets the
 * money back (Paddle records an approved `chargeback` adjustment) and leaves the subscription as
 * it was: the account goes to Free at once, and burrowd cancels the subscription at Paddle so
 * that it does not renew. Refunds, warnings and chargebacks of other subscriptions change nothing.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { signPaddle } from '../../src/billing/paddle-signature.js'
import { billingPort } from '../../src/app/billing-port.js'
import type { BillingStack } from '../helpers/billing-stack.js'
import { STACK_SECRET, startBillingStack } from '../helpers/billing-stack.js'
import { eventBody, subscriptionData, TEST_PRICES } from '../helpers/paddle-events.js'
import { testBackends } from '../helpers/test-databases.js'

const T0 = new Date('2026-01-31T12:00:00.000Z')

for (const backend of testBackends()) {
  describe(`chargebacks on ${backend.name}`, () => {
    let stack: BillingStack
    let now: Date
    let account: { id: string; email: string }

    /** Buy `plan` yearly through the stand-in's checkout; returns the subscription id. */
    const buyAnnual = async (plan: 'pro' | 'scale'): Promise<string> => {
      const link = await stack.billing.checkoutUrl(account, plan, 'annual', 'http://burrow.test/')
      const txn = new URL(link).searchParams.get('_ptxn')!
      await stack.paddle.pay(txn)
      return stack.paddle.subscriptionOf(account.id)!.id
    }

    /** An adjustment event's body as Paddle sends it. */
    const adjustmentBody = (data: Record<string, unknown>, occurredAt = now) =>
      JSON.stringify(
        eventBody('adjustment.created', { id: 'adj_1', type: 'full', ...data }, { occurredAt }),
      )

    /** Deliver an adjustment event signed as Paddle would. */
    const adjustment = async (data: Record<string, unknown>, occurredAt = now) =>
      deliver(adjustmentBody(data, occurredAt))

    /** Deliver a `subscription.updated` of `sub` (active, Scale yearly) dated `occurredAt`. */
    const updated = (sub: string, occurredAt: Date) =>
      deliver(
        JSON.stringify(
          eventBody(
            'subscription.updated',
            subscriptionData({ id: sub, accountId: account.id, priceId: TEST_PRICES.scale_annual }),
            { occurredAt },
          ),
        ),
      )

    /** Deliver event `body` signed as Paddle would. */
    const deliver = async (body: string) => {
      const res = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'paddle-signature': signPaddle(STACK_SECRET, Math.floor(now.getTime() / 1000), body),
        },
        body,
      })
      return { status: res.status, body: (await res.json()) as { outcome?: string } }
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

    it('a chargeback of the subscription ends its plan at once and cancels it at Paddle', async () => {
      const sub = await buyAnnual('scale')
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
      now = new Date(T0.getTime() + 24 * 3600_000)
      const answer = await adjustment({
        action: 'chargeback',
        status: 'approved',
        subscription_id: sub,
        transaction_id: 'txn_x',
      })
      assert.equal(answer.status, 200)
      assert.equal(answer.body.outcome, 'applied')
      const status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'free')
      assert.equal(status.state, 'free')
      assert.equal((await stack.store.getAccountById(account.id))?.plan, 'free')
      assert.ok(stack.changed.includes(account.id))
      // Paddle was told to cancel it now, so it does not renew at the period's end.
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'canceled')
      // An update of the subscription from before the chargeback, delivered late, is stale.
      assert.equal((await updated(sub, new Date(T0.getTime() + 3600_000))).body.outcome, 'stale')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
      // One dated after the chargeback, still active (sent before Paddle processed the
      // cancellation), gives no plan back: a charged-back subscription is over.
      assert.equal((await updated(sub, new Date(now.getTime() + 1000))).body.outcome, 'ignored')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
      assert.equal((await stack.store.getAccountById(account.id))?.plan, 'free')
    })

    it('cancels at Paddle when the chargeback is delivered again after a failed cancellation', async () => {
      const sub = await buyAnnual('scale')
      now = new Date(T0.getTime() + 24 * 3600_000)
      // Paddle's API is down for the first cancellation.
      const handle = stack.paddle.handle.bind(stack.paddle)
      let down = 1
      stack.paddle.handle = async (req, res) => {
        if (req.url?.endsWith('/cancel') && down > 0) {
          down--
          res.writeHead(503, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { type: 'api_error', code: 'unavailable' } }))
          return
        }
        await handle(req, res)
      }
      const body = adjustmentBody({
        action: 'chargeback',
        status: 'approved',
        subscription_id: sub,
      })
      const first = await deliver(body)
      assert.notEqual(first.status, 200, 'the webhook fails, so Paddle delivers it again')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'active')
      const again = await deliver(body)
      assert.equal(again.status, 200)
      assert.equal(again.body.outcome, 'duplicate')
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'canceled')
      // Delivered once more, nothing is asked of Paddle: the subscription is canceled already.
      const third = await deliver(body)
      assert.equal(third.status, 200)
      assert.equal(down, 0)
    })

    /** Count the cancellations Paddle is asked for from now on. */
    const countCancels = () => {
      const counted = { cancels: 0 }
      const handle = stack.paddle.handle.bind(stack.paddle)
      stack.paddle.handle = async (req, res) => {
        if (req.url?.endsWith('/cancel')) counted.cancels++
        await handle(req, res)
      }
      return counted
    }

    /** The kinds of the account's billing history, newest first, as the API and page read it. */
    const historyKinds = async () =>
      (await billingPort(stack.billing).history(account.id)).map((h) => h.kind)

    it('a chargeback the bank reverses is recorded, lifts its mark, and the owner subscribes again', async () => {
      const sub = await buyAnnual('scale')
      now = new Date(T0.getTime() + 24 * 3600_000)
      const chargeback = { id: 'adj_1', subscription_id: sub, transaction_id: 'txn_paid' }
      const charged = await adjustment({ ...chargeback, action: 'chargeback', status: 'approved' })
      assert.equal(charged.body.outcome, 'applied')
      const port = billingPort(stack.billing)
      assert.deepEqual((await port.subscription(account.id))?.chargedBackAt, now)
      assert.ok((await historyKinds()).includes('chargeback'))
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'canceled')

      // Weeks later Paddle wins the dispute: a chargeback_reverse adjustment of the same
      // transaction, and the chargeback marked reversed. Both tell of one reversal.
      now = new Date(T0.getTime() + 40 * 24 * 3600_000)
      const counted = countCancels()
      const reversal = await adjustment({
        id: 'adj_2',
        subscription_id: sub,
        transaction_id: 'txn_paid',
        action: 'chargeback_reverse',
        status: 'approved',
      })
      assert.equal(reversal.status, 200)
      assert.equal(reversal.body.outcome, 'applied')
      const marked = await deliver(
        JSON.stringify(
          eventBody(
            'adjustment.updated',
            { ...chargeback, type: 'full', action: 'chargeback', status: 'reversed' },
            { occurredAt: now },
          ),
        ),
      )
      assert.equal(marked.status, 200)
      assert.equal(marked.body.outcome, 'ignored', 'the same reversal, told twice')
      assert.equal(counted.cancels, 0, 'a reversal cancels nothing at Paddle')

      // The account is no longer marked, the history shows the reversal once, newest first.
      assert.equal((await port.subscription(account.id))?.chargedBackAt, null)
      const kinds = await historyKinds()
      assert.equal(kinds[0], 'chargeback_reversed')
      assert.equal(kinds.filter((k) => k === 'chargeback_reversed').length, 1)
      assert.ok(kinds.includes('chargeback') && kinds.includes('subscribed'))
      const status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'free')
      assert.equal(status.state, 'free')

      // The owner buys again, as any account on Free does.
      const next = await buyAnnual('pro')
      assert.notEqual(next, sub)
      const again = await stack.billing.status(account.id)
      assert.equal(again.plan, 'pro')
      assert.equal(again.state, 'paid')
      assert.equal(again.subscription?.chargedBackAt, null)
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'active')
    })

    it('a reversed chargeback still ends its subscription for late news of it', async () => {
      const sub = await buyAnnual('scale')
      now = new Date(T0.getTime() + 24 * 3600_000)
      const charged = now
      const chargeback = { id: 'adj_1', subscription_id: sub, transaction_id: 'txn_paid' }
      await adjustment({ ...chargeback, action: 'chargeback', status: 'approved' })
      now = new Date(T0.getTime() + 40 * 24 * 3600_000)
      const reversal = await adjustment({
        ...chargeback,
        id: 'adj_2',
        action: 'chargeback_reverse',
        status: 'approved',
      })
      assert.equal(reversal.body.outcome, 'applied')
      // An update sent before Paddle processed the cancellation (still active), delivered late:
      // the subscription is canceled at Paddle, and the reversal does not resume it.
      const late = await deliver(
        JSON.stringify(
          eventBody(
            'subscription.updated',
            subscriptionData({ id: sub, accountId: account.id, priceId: TEST_PRICES.scale_annual }),
            { occurredAt: new Date(charged.getTime() + 1000) },
          ),
        ),
      )
      assert.notEqual(late.body.outcome, 'applied')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
      assert.equal((await stack.store.getAccountById(account.id))?.plan, 'free')
    })

    it('a reversal after the owner bought again is recorded for the account and changes nothing else', async () => {
      const sub = await buyAnnual('scale')
      now = new Date(T0.getTime() + 24 * 3600_000)
      const chargeback = { id: 'adj_1', subscription_id: sub, transaction_id: 'txn_paid' }
      await adjustment({ ...chargeback, action: 'chargeback', status: 'approved' })
      now = new Date(T0.getTime() + 2 * 24 * 3600_000)
      const next = await buyAnnual('pro')
      // The new subscription carries no mark of the old one's chargeback.
      assert.equal((await stack.billing.status(account.id)).subscription?.chargedBackAt, null)
      now = new Date(T0.getTime() + 40 * 24 * 3600_000)
      const counted = countCancels()
      const reversal = await adjustment({
        id: 'adj_2',
        subscription_id: sub,
        transaction_id: 'txn_paid',
        action: 'chargeback_reverse',
        status: 'approved',
      })
      assert.equal(reversal.body.outcome, 'applied')
      assert.equal((await historyKinds())[0], 'chargeback_reversed')
      const status = await stack.billing.status(account.id)
      assert.equal(status.plan, 'pro')
      assert.equal(status.subscription?.subscriptionId, next)
      assert.equal(counted.cancels, 0)
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'active')
    })

    it('a chargeback delivered after its reversal ends nothing', async () => {
      const sub = await buyAnnual('scale')
      const counted = countCancels()
      const chargeback = { id: 'adj_1', subscription_id: sub, transaction_id: 'txn_paid' }
      // Paddle does not promise order: the reversal arrives first.
      const reversed = await adjustment(
        {
          id: 'adj_2',
          subscription_id: sub,
          transaction_id: 'txn_paid',
          action: 'chargeback_reverse',
          status: 'approved',
        },
        new Date(T0.getTime() + 2 * 24 * 3600_000),
      )
      assert.equal(reversed.body.outcome, 'ignored')
      const late = await adjustment(
        { ...chargeback, action: 'chargeback', status: 'approved' },
        new Date(T0.getTime() + 24 * 3600_000),
      )
      assert.equal(late.status, 200)
      assert.equal(late.body.outcome, 'stale')
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
      assert.equal(counted.cancels, 0)
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'active')
      // A chargeback of another transaction of the subscription still ends the plan.
      const charged = await adjustment(
        {
          id: 'adj_4',
          subscription_id: sub,
          transaction_id: 'txn_other',
          action: 'chargeback',
          status: 'approved',
        },
        new Date(T0.getTime() + 24 * 3600_000),
      )
      assert.equal(charged.body.outcome, 'applied')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
    })

    it('refunds awaiting approval, warnings and chargebacks of no subscription of ours change nothing', async () => {
      const sub = await buyAnnual('pro')
      for (const data of [
        { action: 'refund', status: 'approved', subscription_id: sub },
        { action: 'chargeback_warning', status: 'approved', subscription_id: sub },
        { action: 'chargeback', status: 'pending_approval', subscription_id: sub },
        { action: 'chargeback', status: 'approved', subscription_id: 'sub_unknown' },
        { action: 'chargeback', status: 'approved', subscription_id: null },
        // A reversal of a chargeback that never came.
        { action: 'chargeback_reverse', status: 'approved', subscription_id: sub },
      ]) {
        const answer = await adjustment(data)
        assert.equal(answer.status, 200)
        assert.equal(answer.body.outcome, 'ignored', JSON.stringify(data))
      }
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
      assert.equal(stack.paddle.subscriptionOf(account.id)!.status, 'active')
    })
  })
}
