/**
 * An OAuth error (RFC 6749 §5.2): a code from the spec's list and a description. The token,
 * registration and revocation endpoints answer it as JSON; the authorization endpoint sends it
 * back to the client's redirect URI, or shows it when the redirect URI cannot be trusted.
 */

/** One OAuth error. */
export class OauthError extends Error {
  readonly code: string
  readonly status: number
  /** Seconds to wait before asking again (a 429's `Retry-After`). */
  readonly retryAfterSecs: number | undefined

  constructor(code: string, description: string, status = 400, retryAfterSecs?: number) {
    super(description)
    this.name = 'OauthError'
    this.code = code
    this.status = status
    this.retryAfterSecs = retryAfterSecs
  }
}
