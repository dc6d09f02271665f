/**
 * The error a dashboard or API handler throws to answer with a status: the API turns it into
 * `{"error": {"code", "message"}}`, the dashboard into a page that says the message.
 */

/** A refusal with an HTTP status, a stable code and a message fit to show to the user. */
export class HttpError extends Error {
  readonly status: number
  readonly code: string
  /** Extra fields for the API's error object (e.g. `limit` for `plan_limit`). */
  readonly details: Readonly<Record<string, unknown>>

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
    this.details = details
  }
}
