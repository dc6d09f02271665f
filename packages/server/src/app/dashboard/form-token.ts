/**
 * The pre-session CSRF token of the sign-up and sign-in forms: random, set as a cookie and
 * echoed in a hidden field (double submit), since no session exists yet to hold a token.
 */
import { randomBytes } from 'node:crypto'

/** A fresh form token. */
export function newFormToken(): string {
  return randomBytes(24).toString('base64url')
}
