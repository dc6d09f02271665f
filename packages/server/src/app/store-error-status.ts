/**
 * The HTTP answer for a `StoreError`: what the dashboard shows and the API returns when the
 * store refuses (a taken name, an invalid value, a missing row, the plan's tunnel limit) or
 * billing does (no subscription to change, the provider unreachable).
 */
import { BILLING_ERROR_STATUS, BillingError } from '../billing/billing-error.js'
import { StoreError } from '../store/store-error.js'
import { HttpError } from '../http/http-error.js'

const STATUS: Readonly<Record<string, number>> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  plan_limit: 402,
  unauthorized: 401,
}

/** The `HttpError` for `err` when it is a StoreError or HttpError; anything else is rethrown. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err
  if (err instanceof StoreError) {
    const details: Record<string, unknown> =
      err.code === 'plan_limit' ? { upgrade_url: '/dashboard/billing', ...limitOf(err) } : {}
    return new HttpError(STATUS[err.code] ?? 400, err.code, err.message, details)
  }
  if (err instanceof BillingError)
    return new HttpError(BILLING_ERROR_STATUS[err.code], err.code, err.message)
  if (isForeignKeyViolation(err)) {
    return new HttpError(404, 'not_found', 'what this request changes was deleted meanwhile')
  }
  throw err
}

/**
 * A write the database refused because a row it belongs to is gone: a request checked that the
 * tunnel is the caller's, and a delete of it committed before the request's insert (an agent
 * token, access settings, a policy version). Before, that answered 500.
 */
function isForeignKeyViolation(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : null
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

function limitOf(err: StoreError): Record<string, unknown> {
  const limit = (err as { limit?: unknown }).limit
  return typeof limit === 'number' ? { limit } : {}
}
