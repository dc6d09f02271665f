/**
 * The error the store throws when a request cannot be honoured: a taken name, an invalid value
 * or a missing row. A local error: callers map `code` to their own output (HTTP status, exit 1).
 */

/** Why the store refused: the value is taken, malformed, or names nothing. */
export type StoreErrorCode = 'conflict' | 'invalid' | 'not_found'

/** A request the store refused; `message` is fit to show to the user. */
export class StoreError extends Error {
  /** Stable code callers branch on. */
  readonly code: StoreErrorCode

  constructor(code: StoreErrorCode, message: string) {
    super(message)
    this.name = 'StoreError'
    this.code = code
  }
}
