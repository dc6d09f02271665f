/**
 * Security headers for every page and JSON answer of the service host: a strict Content Security
 * Policy (our own scripts and styles only, no framing), nosniff, no referrer leaks, and no
 * caching of pages that show account data.
 */

/** Options of `pageSecurityHeaders`. */
export interface SecurityHeaderOptions {
  /** Extra origins forms may submit or redirect to (a payment provider's checkout). */
  readonly formActionOrigins?: readonly string[]
  /** Send HSTS (only when the service is reached over https). */
  readonly https?: boolean
}

/** Headers for an HTML page. */
export function pageSecurityHeaders(opts: SecurityHeaderOptions = {}): Record<string, string> {
  const formAction = ["'self'", ...(opts.formActionOrigins ?? [])].join(' ')
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
    ...(opts.https ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  }
}

/** Headers for a JSON answer of the API. */
export function apiSecurityHeaders(): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  }
}
