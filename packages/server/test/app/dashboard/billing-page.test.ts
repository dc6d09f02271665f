/**
 * The billing page and `GET /api/billing` show the billing history the payment provider's events
 * made, and say so while a chargeback has ended the subscription; once the bank reverses it, the
 * notice is gone and the history says so. A plan from a subscription the account did not check
 * out itself does not take the place of its own checkout.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { billingJson } from '../../../src/app/api/api-json.js'
import type { BillingView } from '../../../src/app/billing-view.js'
import { billingPage } from '../../../src/app/dashboard/billing-page.js'

const viewer = { email: 'ann@example.com', slug: 'ann', csrfToken: 'csrf' }
const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12))
const view = (fields: Partial<BillingView>): BillingView => ({
  plan: 'free',
  state: 'free',
  cycle: null,
  renewsAt: null,
  endsAt: null,
  tunnelCount: 0,
  meters: { period: '2026-01', takenAt: null, resetsAt: at(32), tunnels: [] },
  chargedBackAt: null,
  history: [],
  ...fields,
})

describe('billing history', () => {
  it('tells the owner a chargeback ended the plan, and lists it', () => {
    const charged = view({
      chargedBackAt: at(2),
      history: [
        { at: at(2), kind: 'chargeback' },
        { at: at(1), kind: 'subscribed' },
      ],
    })
    const body = billingPage(viewer, charged).value
    assert.match(body, /disputed with your bank \(chargeback\)/)
    assert.deepEqual(
      [...body.matchAll(/data-event="([a-z_]+)"/g)].map((m) => m[1]),
      ['chargeback', 'subscribed'],
    )
    assert.equal(billingJson(charged).charged_back_at, at(2).toISOString())
  })

  it('shows the reversal and no chargeback notice once the bank reversed it', () => {
    const reversed = view({
      history: [
        { at: at(30), kind: 'chargeback_reversed' },
        { at: at(2), kind: 'chargeback' },
        { at: at(1), kind: 'subscribed' },
      ],
    })
    const body = billingPage(viewer, reversed).value
    assert.doesNotMatch(body, /disputed with your bank/)
    assert.match(body, /data-event="chargeback_reversed"><td>[^<]+<\/td><td>Chargeback reversed/)
    const json = billingJson(reversed)
    assert.equal(json.charged_back_at, null)
    assert.deepEqual(json.history[0], { at: at(30).toISOString(), event: 'chargeback_reversed' })
    // Checkout buttons are offered: nothing stands between the owner and a new subscription.
    assert.match(body, /action="\/dashboard\/billing\/checkout"/)
  })

  it('offers checkout, not a plan change, while the plan is a subscription the account did not check out', () => {
    const paid = { plan: 'pro' as const, state: 'active' as const, cycle: 'monthly' as const }
    const own = billingPage(viewer, view(paid)).value
    assert.doesNotMatch(own, /action="\/dashboard\/billing\/checkout"/)
    assert.match(own, /action="\/dashboard\/billing\/change"/)
    // Bound by its custom data alone while the account was on Free: perhaps a stranger's.
    const foreign = billingPage(viewer, view({ ...paid, foreign: true })).value
    assert.match(foreign, /action="\/dashboard\/billing\/checkout"/)
    assert.doesNotMatch(foreign, /action="\/dashboard\/billing\/change"/)
  })

  it('shows no history section before any billing event', () => {
    assert.doesNotMatch(billingPage(viewer, view({})).value, /billing-history/)
  })
})
