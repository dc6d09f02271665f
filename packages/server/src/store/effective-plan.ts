/**
 * The plan an account is on right now. Billing writes `accounts.plan` and, for a cancelled
 * subscription, `accounts.plan_expires_at`; the paid plan ends at that time even if no webhook
 * or timer runs then, because every reader asks this function instead of trusting `plan` alone.
 */

import type { PlanId } from '../plans.js'

/**
 * `plan` while `now` is before `planExpiresAt` (or when there is no expiry), `'free'` from
 * `planExpiresAt` on.
 */
export function effectivePlan(plan: PlanId, planExpiresAt: Date | null, now: Date): PlanId {
  if (planExpiresAt !== null && now.getTime() >= planExpiresAt.getTime()) return 'free'
  return plan
}
