/**
 * A customer who buys a year of Scale and then disputes the payment with their bank gets the
 * money back (Paddle records an approved `chargeback` adjustment) and leaves the subscription as
 * it was: the account goes to Free at once, and burrowd cancels the subscription at Paddle so
 * that it does not renew. Refunds, warnings and chargebacks of other subscriptions change nothing.
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { signPaddle } from '../../src/billing/paddle-signature.js'
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
      const late = JSON.stringify(
        eventBody(
          'subscription.updated',
          subscriptionData({ id: sub, accountId: account.id, priceId: TEST_PRICES.scale_annual }),
          { occurredAt: new Date(T0.getTime() + 3600_000) },
        ),
      )
      const res = await fetch(stack.webhookUrl, {
        method: 'POST',
        headers: {
          'paddle-signature': signPaddle(STACK_SECRET, Math.floor(now.getTime() / 1000), late),
        },
        body: late,
      })
      assert.equal(((await res.json()) as { outcome: string }).outcome, 'stale')
      assert.equal((await stack.billing.status(account.id)).plan, 'free')
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

    it('refunds awaiting approval, warnings and chargebacks of no subscription of ours change nothing', async () => {
      const sub = await buyAnnual('pro')
      for (const data of [
        { action: 'refund', status: 'approved', subscription_id: sub },
        { action: 'chargeback_warning', status: 'approved', subscription_id: sub },
        { action: 'chargeback', status: 'pending_approval', subscription_id: sub },
        { action: 'chargeback', status: 'approved', subscription_id: 'sub_unknown' },
        { action: 'chargeback', status: 'approved', subscription_id: null },
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
