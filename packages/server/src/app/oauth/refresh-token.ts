/** Refresh tokens as the authorization server gives them out: random, and living 30 days. */
import { randomBytes } from 'node:crypto'

/** Days a refresh token lives. */
const REFRESH_TTL_DAYS = 30

/** A new refresh token (stored only as its hash). */
export function newRefreshToken(): string {
  return 'brt_' + randomBytes(32).toString('base64url')
}

/**
 * Whether `token` is written as refresh tokens are (`brt_` and 43 base64url characters, as
 * `newRefreshToken` and `AccessTokens.refreshSuccessor` write them): any other is refused
 * before it is looked up.
 */
export function isRefreshTokenShape(token: string): boolean {
  return /^brt_[A-Za-z0-9_-]{43}$/.test(token)
}

/** When a refresh token given out now expires. */
export function refreshExpiry(): Date {
  return new Date(Date.now() + REFRESH_TTL_DAYS * 24 * 3600_000)
}
