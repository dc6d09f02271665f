/** The billing fields that forms and JSON bodies share: the cycle and the paid plan. */
import { isPlanId, type BillingCycle } from '../plans.js'
import { HttpError } from '../http/http-error.js'

/** `monthly` or `annual` from a form or JSON field. */
export function parseCycle(value: unknown): BillingCycle {
  if (value === 'monthly' || value === 'annual') return value
  throw new HttpError(400, 'invalid', 'billing cycle must be "monthly" or "annual"')
}

/** The plan id from a form or JSON field, when it is a paid plan. */
export function parsePaidPlan(value: unknown): 'pro' | 'scale' {
  if (typeof value === 'string' && isPlanId(value) && value !== 'free') return value
  throw new HttpError(400, 'invalid', 'plan must be "pro" or "scale"')
}
