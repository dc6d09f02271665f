/**
 * The error the store throws when a request cannot be honoured: a taken name, an invalid value,
 * a missing row or a plan limit reached. A local error: callers map `code` to their own output
 * (HTTP status, exit 1).
 */

/**
 * Why the store refused: the value is taken, malformed, names nothing, the account's plan
 * allows no more (the web layer answers 402 Payment Required), or the credential the request acts
 * with was revoked while it was being served (`acting-credential.ts`; 401).
 */
export type StoreErrorCode = 'conflict' | 'invalid' | 'not_found' | 'plan_limit' | 'unauthorized'

/** A request the store refused; `message` is fit to show to the user. */
export class StoreError extends Error {
  /** Stable code callers branch on. */
  readonly code: StoreErrorCode
  /** With `plan_limit`: how many the account's plan allows. */
  readonly limit?: number

  constructor(code: StoreErrorCode, message: string, options: { limit?: number } = {}) {
    super(message)
    this.name = 'StoreError'
    this.code = code
    if (options.limit !== undefined) this.limit = options.limit
  }
}
