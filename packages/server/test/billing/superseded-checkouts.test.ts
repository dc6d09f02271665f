/**
 * A checkout link the account opened but did not pay is void once another of its checkouts made
 * a subscription: paying the old link afterwards (a tab left open, the browser's history) used to
 * make a second subscription that replaced the one the account paid for, which then renewed at
 * Paddle with no way to cancel it from the billing page (the Paddle stand-in on its own port,
 * webhooks signed to a real route over a real store).
 */

import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { BillingStack } from '../helpers/billing-stack.js'
import { startBillingStack } from '../helpers/billing-stack.js'
import { testBackends } from '../helpers/test-databases.js'

const T0 = new Date('2026-01-31T12:00:00.000Z')
const SUCCESS = 'http://burrow.test/dashboard/billing?paid=1'

for (const backend of testBackends()) {
  describe(`checkout links superseded by a subscription on ${backend.name}`, () => {
    let stack: BillingStack
    let now: Date
    let account: { id: string; email: string }

    /** Open a checkout link's page and press Pay; the page's status, then Pay's. */
    const pay = async (link: string): Promise<number> => {
      const page = await fetch(link)
      const html = await page.text()
      if (page.status !== 200) return page.status
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
      await paid.arrayBuffer()
      return paid.status
    }
    const txnOf = (link: string) => new URL(link).searchParams.get('_ptxn')!

    beforeEach(async () => {
      now = T0
      stack = await startBillingStack(backend, () => now)
      const created = await stack.store.createAccount({ email: 'ann@example.com', slug: 'ann' })
      account = { id: created.id, email: created.email }
    })
    afterEach(async () => {
      await stack.close()
    })

    it('an older link paid after another made the subscription is refused, and the plan stays', async () => {
      const pro = await stack.billing.checkoutUrl(account, 'pro', 'monthly', SUCCESS)
      const scale = await stack.billing.checkoutUrl(account, 'scale', 'annual', SUCCESS)
      assert.equal(await pay(scale), 303)
      const bought = await stack.billing.status(account.id)
      assert.equal(bought.plan, 'scale')
      // The Pro link, opened first, is void at Paddle once the Scale subscription bound.
      assert.equal(stack.paddle.transactions.get(txnOf(pro))?.status, 'canceled')

      now = new Date(now.getTime() + 24 * 60 * 60_000)
      assert.equal(await pay(pro), 409)
      const after = await stack.billing.status(account.id)
      assert.equal(after.plan, 'scale')
      assert.equal(after.subscription?.subscriptionId, bought.subscription?.subscriptionId)
      // One subscription at Paddle: nothing renews that the billing page cannot cancel.
      assert.equal(stack.paddle.subscriptions.size, 1)
    })

    it('a newer link is void too when the older one was paid first', async () => {
      const pro = await stack.billing.checkoutUrl(account, 'pro', 'monthly', SUCCESS)
      const scale = await stack.billing.checkoutUrl(account, 'scale', 'monthly', SUCCESS)
      assert.equal(await pay(pro), 303)
      assert.equal(await pay(scale), 409)
      assert.equal((await stack.billing.status(account.id)).plan, 'pro')
      assert.equal(stack.paddle.subscriptions.size, 1)
    })

    it('voids the links again when the subscription.created is delivered again', async () => {
      const pro = await stack.billing.checkoutUrl(account, 'pro', 'monthly', SUCCESS)
      const scale = await stack.billing.checkoutUrl(account, 'scale', 'monthly', SUCCESS)
      // Paddle cannot void the Pro link when Scale's subscription binds: the webhook fails, so
      // Paddle delivers it again (a duplicate), and the link is voided then.
      stack.paddle.failTransactionUpdates(1)
      assert.equal(await pay(scale), 303)
      const created = stack.received.find((w) => w.eventType === 'subscription.created')
      assert.equal(created?.status, 502)
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
      await stack.paddle.resend(created.eventId)
      assert.equal(stack.paddle.transactions.get(txnOf(pro))?.status, 'canceled')
      assert.equal(await pay(pro), 409)
      assert.equal((await stack.billing.status(account.id)).plan, 'scale')
    })
  })
}
