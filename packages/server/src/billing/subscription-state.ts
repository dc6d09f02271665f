/**
 * The subscription state machine, pure: from what Paddle says about a subscription to what the
 * account gets. Paddle's status and scheduled change map onto four internal states
 * (docs/decisions.md#billing):
 *
 * | Paddle                                   | state        | account plan | plan_expires_at     |
 * |------------------------------------------|--------------|--------------|---------------------|
 * | active/trialing, nothing scheduled       | `paid`       | bought plan  | none                |
 * | active/trialing + scheduled cancel/pause | `paid_until` | bought plan  | `effective_at`      |
 * | past_due (payment failed, dunning)       | `past_due`   | bought plan  | current period end  |
 * | canceled, paused                         | `free`       | `free`       | none                |
 *
 * Paddle has no `unpaid`/`expired`: a subscription whose dunning failed becomes `canceled` (or
 * `paused`, by the seller's settings), and so an expired or unpaid subscription goes to Free at
 * once.
 */

import type { PlanId } from '../plans.js'
import type { BillingCycle, PaidPlanId, PriceTable } from './billing-config.js'
import { BillingError } from './billing-error.js'
import type { PaddleSubscription } from './paddle-event.js'

/** Internal subscription state, stored in `subscriptions.state`. */
export type SubscriptionState = 'paid' | 'paid_until' | 'past_due' | 'free'

/** What an account gets from a subscription. */
export interface PlanDecision {
  readonly state: SubscriptionState
  /** The plan to store on the account: the bought plan, or `free`. */
  readonly plan: PlanId
  /** The plan the subscription is for, whatever its state. */
  readonly subscribedPlan: PaidPlanId
  readonly cycle: BillingCycle
  /** When the account falls back to Free without another webhook; null for no end. */
  readonly planExpiresAt: Date | null
}

/** What the state machine reads of a subscription. */
export type SubscriptionFacts = Pick<
  PaddleSubscription,
  'id' | 'status' | 'priceIds' | 'currentPeriodEndsAt' | 'scheduledChange'
>

/**
 * Paid limits kept for a `past_due` subscription that names no current period (Paddle always
 * sends one; this only keeps a malformed snapshot from granting a paid plan forever).
 */
export const PAST_DUE_FALLBACK_MS = 7 * 24 * 60 * 60 * 1000

/**
 * Decide the account's plan from a subscription snapshot taken at `at`. Throws `BillingError`
 * `unknown_price` when none of its prices is configured (the operator's prices do not match
 * the provider's catalog).
 */
export function decidePlan(
  subscription: SubscriptionFacts,
  prices: PriceTable,
  at: Date,
): PlanDecision {
  const priced = subscription.priceIds.map((id) => prices.get(id)).find((p) => p !== undefined)
  if (priced === undefined) {
    throw new BillingError(
      'unknown_price',
      `subscription ${subscription.id} is for price ${subscription.priceIds.join(', ')}, which is ` +
        'none of the configured prices; set BURROW_PADDLE_PRICE_* to the price ids in Paddle',
    )
  }
  const { plan, cycle } = priced
  const paid = (state: SubscriptionState, planExpiresAt: Date | null): PlanDecision => ({
    state,
    plan,
    subscribedPlan: plan,
    cycle,
    planExpiresAt,
  })
  // A scheduled resume only exists on a paused subscription: it changes nothing until it happens.
  const ending =
    subscription.scheduledChange !== null && subscription.scheduledChange.action !== 'resume'
      ? subscription.scheduledChange.effectiveAt
      : null

  switch (subscription.status) {
    case 'active':
    case 'trialing':
      // A scheduled pause ends paid limits just as a scheduled cancellation does.
      return ending === null ? paid('paid', null) : paid('paid_until', ending)
    case 'past_due': {
      // Keep paid limits while Paddle retries the payment, to the end of the period at most.
      const periodEnd =
        subscription.currentPeriodEndsAt ?? new Date(at.getTime() + PAST_DUE_FALLBACK_MS)
      return paid('past_due', earliest(periodEnd, ending))
    }
    case 'paused':
    case 'canceled':
      return { state: 'free', plan: 'free', subscribedPlan: plan, cycle, planExpiresAt: null }
  }
}

function earliest(a: Date, b: Date | null): Date {
  return b !== null && b.getTime() < a.getTime() ? b : a
}
