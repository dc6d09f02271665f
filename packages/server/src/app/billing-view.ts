/**
 * The account's billing state and usage meters, as `GET /api/billing` returns them and the
 * billing page shows them. Meters come from the periodic snapshot, with the time it was taken;
 * the history from the payment provider's events applied to the account.
 */
import type { BillingHistoryKind } from '../billing/billing-history.js'
import type { BillingCycle, PlanId } from '../plans.js'

/** The plan's state as the owner sees it. */
export type PlanState = 'free' | 'active' | 'cancels' | 'payment_failed'

/** The subscription, as last synchronised with the payment provider. */
export interface SubscriptionView {
  readonly plan: PlanId
  readonly cycle: BillingCycle
  /** Internal state: paid, paid_until (cancelled), past_due, free. */
  readonly state: 'paid' | 'paid_until' | 'past_due' | 'free'
  readonly periodEndsAt: Date | null
  readonly cancelsAt: Date | null
  /** When an approved chargeback ended it, until the bank reverses the chargeback. */
  readonly chargedBackAt: Date | null
  /**
   * False when only its custom data bound it to the account (on Free; it may be a stranger's):
   * the account may still check out a subscription of its own, which replaces it.
   */
  readonly fromCheckout?: boolean
}

/** One entry of the billing history, newest first: what the payment provider reported. */
export interface BillingHistoryView {
  readonly at: Date
  readonly kind: BillingHistoryKind
}

/** One tunnel's meters this month. */
export interface TunnelMeter {
  readonly tunnelId: string
  readonly name: string
  readonly toolCalls: number
  readonly bandwidthBytes: number
}

/** The meters of the current month. */
export interface MetersView {
  /** `YYYY-MM`, UTC. */
  readonly period: string
  /** When the snapshot the values come from was taken; null before the first. */
  readonly takenAt: Date | null
  /** True when the values were read from the live counters just now (the dashboard's). */
  readonly live?: boolean
  /** 00:00 UTC on the 1st of next month. */
  readonly resetsAt: Date
  readonly tunnels: readonly TunnelMeter[]
}

/** Everything the billing page and `GET /api/billing` show. */
export interface BillingView {
  /** The plan in force now (Free once a cancelled subscription's period has ended). */
  readonly plan: PlanId
  readonly state: PlanState
  readonly cycle: BillingCycle | null
  /** When a paid plan renews (active) or ends (cancels, payment_failed). */
  readonly renewsAt: Date | null
  readonly endsAt: Date | null
  readonly tunnelCount: number
  readonly meters: MetersView
  /** When a chargeback ended the subscription (plan ended, canceled), until reversed; else null. */
  readonly chargedBackAt: Date | null
  /** True when the plan comes from a subscription the account did not check out itself. */
  readonly foreign?: boolean
  readonly history: readonly BillingHistoryView[]
}

/** The owner-facing state from the effective plan, its expiry and the subscription. */
export function planState(
  plan: PlanId,
  planExpiresAt: Date | null,
  sub: SubscriptionView | null,
): { state: PlanState; cycle: BillingCycle | null; renewsAt: Date | null; endsAt: Date | null } {
  if (plan === 'free') return { state: 'free', cycle: null, renewsAt: null, endsAt: null }
  const cycle = sub?.cycle ?? null
  if (sub?.state === 'past_due') {
    return {
      state: 'payment_failed',
      cycle,
      renewsAt: null,
      endsAt: planExpiresAt ?? sub.periodEndsAt,
    }
  }
  if (planExpiresAt !== null || sub?.state === 'paid_until') {
    return {
      state: 'cancels',
      cycle,
      renewsAt: null,
      endsAt: planExpiresAt ?? sub?.cancelsAt ?? null,
    }
  }
  return { state: 'active', cycle, renewsAt: sub?.periodEndsAt ?? null, endsAt: null }
}
