/**
 * The error billing throws when it cannot do what was asked: no subscription to change, one
 * already bought, a price burrowd does not know, or the provider refusing or unreachable. A
 * local error: the app maps `code` to its HTTP status (`BILLING_ERROR_STATUS`) and may show the
 * message to the account's owner.
 */

/** Why billing refused. */
export type BillingErrorCode =
  | 'no_subscription'
  | 'already_subscribed'
  | 'same_plan'
  | 'unknown_price'
  | 'unverified_subscription'
  | 'provider_mismatch'
  | 'provider'

/** The HTTP status the app answers each code with. */
export const BILLING_ERROR_STATUS: Readonly<Record<BillingErrorCode, number>> = {
  no_subscription: 409,
  already_subscribed: 409,
  same_plan: 409,
  unknown_price: 422,
  unverified_subscription: 409,
  provider_mismatch: 409,
  provider: 502,
}

/** A billing request that cannot be honoured; `message` says what happened and what to do. */
export class BillingError extends Error {
  /** Stable code callers branch on. */
  readonly code: BillingErrorCode

  constructor(code: BillingErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BillingError'
    this.code = code
  }
}
