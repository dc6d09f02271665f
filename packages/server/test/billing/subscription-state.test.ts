/**
 * Tests of the subscription state machine: each Paddle status and scheduled change maps to the
 * plan, state and expiry of the normalised table.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { priceTable } from '../../src/billing/billing-config.js'
import { BillingError } from '../../src/billing/billing-error.js'
import type { SubscriptionFacts } from '../../src/billing/subscription-state.js'
import { decidePlan, PAST_DUE_FALLBACK_MS } from '../../src/billing/subscription-state.js'
import { TEST_PRICES } from '../helpers/paddle-events.js'

const PRICES = priceTable(TEST_PRICES)
const AT = new Date('2026-03-10T00:00:00.000Z')
const PERIOD_END = new Date('2026-04-04T00:00:00.000Z')
const CANCEL_AT = new Date('2026-04-04T00:00:00.000Z')

function facts(overrides: Partial<SubscriptionFacts> = {}): SubscriptionFacts {
  return {
    id: 'sub_1',
    status: 'active',
    priceIds: [TEST_PRICES.scale_annual],
    currentPeriodEndsAt: PERIOD_END,
    scheduledChange: null,
    ...overrides,
  }
}

describe('decidePlan', () => {
  it('active or trialing with nothing scheduled: paid, no expiry', () => {
    for (const status of ['active', 'trialing'] as const) {
      assert.deepEqual(decidePlan(facts({ status }), PRICES, AT), {
        state: 'paid',
        plan: 'scale',
        subscribedPlan: 'scale',
        cycle: 'annual',
        planExpiresAt: null,
      })
    }
  })

  it('active with a scheduled cancel: paid until it takes effect', () => {
    const decision = decidePlan(
      facts({ scheduledChange: { action: 'cancel', effectiveAt: CANCEL_AT } }),
      PRICES,
      AT,
    )
    assert.equal(decision.state, 'paid_until')
    assert.equal(decision.plan, 'scale')
    assert.deepEqual(decision.planExpiresAt, CANCEL_AT)
  })

  it('a scheduled pause ends paid limits like a cancel; a scheduled resume changes nothing', () => {
    const pause = decidePlan(
      facts({ scheduledChange: { action: 'pause', effectiveAt: CANCEL_AT } }),
      PRICES,
      AT,
    )
    assert.equal(pause.state, 'paid_until')
    assert.deepEqual(pause.planExpiresAt, CANCEL_AT)
    const resume = decidePlan(
      facts({ status: 'paused', scheduledChange: { action: 'resume', effectiveAt: CANCEL_AT } }),
      PRICES,
      AT,
    )
    assert.equal(resume.state, 'free')
  })

  it('past_due keeps the paid plan until the end of the current period', () => {
    const decision = decidePlan(facts({ status: 'past_due' }), PRICES, AT)
    assert.equal(decision.state, 'past_due')
    assert.equal(decision.plan, 'scale')
    assert.deepEqual(decision.planExpiresAt, PERIOD_END)
  })

  it('past_due with an earlier scheduled cancel ends at the cancel', () => {
    const early = new Date('2026-03-20T00:00:00.000Z')
    const decision = decidePlan(
      facts({ status: 'past_due', scheduledChange: { action: 'cancel', effectiveAt: early } }),
      PRICES,
      AT,
    )
    assert.deepEqual(decision.planExpiresAt, early)
  })

  it('past_due without a period keeps paid limits for a bounded grace only', () => {
    const decision = decidePlan(
      facts({ status: 'past_due', currentPeriodEndsAt: null }),
      PRICES,
      AT,
    )
    assert.deepEqual(decision.planExpiresAt, new Date(AT.getTime() + PAST_DUE_FALLBACK_MS))
  })

  it('canceled or paused: Free at once', () => {
    for (const status of ['canceled', 'paused'] as const) {
      assert.deepEqual(decidePlan(facts({ status, currentPeriodEndsAt: null }), PRICES, AT), {
        state: 'free',
        plan: 'free',
        subscribedPlan: 'scale',
        cycle: 'annual',
        planExpiresAt: null,
      })
    }
  })

  it('finds the plan among several items, and refuses a subscription with no known price', () => {
    const decision = decidePlan(
      facts({ priceIds: ['pri_addon', TEST_PRICES.pro_monthly] }),
      PRICES,
      AT,
    )
    assert.equal(decision.plan, 'pro')
    assert.equal(decision.cycle, 'monthly')
    assert.throws(
      () => decidePlan(facts({ priceIds: ['pri_unknown'] }), PRICES, AT),
      (error: unknown) =>
        error instanceof BillingError &&
        error.code === 'unknown_price' &&
        error.message.includes('pri_unknown'),
    )
  })
})
