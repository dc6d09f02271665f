/** Authorization codes as the authorization server gives them out: 256 random bits. */
import { randomBytes } from 'node:crypto'

/** A new authorization code (stored only as its hash). */
export function newAuthorizationCode(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Whether `code` is written as `newAuthorizationCode` writes codes (43 base64url characters):
 * any other is refused before it is looked up.
 */
export function isAuthorizationCodeShape(code: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(code)
}
