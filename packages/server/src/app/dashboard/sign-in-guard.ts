/**
 * Limits on guessing passwords that do not lock the owner out. Every sign-in and sign-up spends
 * from its client address's bucket. Failed sign-ins also spend from a bucket per account, but only
 * when they come from a browser that has never signed in to that account: a successful sign-in
 * leaves a device cookie (a random id and a MAC binding it to the email and to the password it
 * signed in with), and failures from a browser holding one spend from that device's own bucket
 * instead. A new password (a reset) voids every device cookie: one collected while someone else
 * knew the old password buys no guesses at the new one. An attacker who guesses from
 * many addresses stops the account's untrusted bucket; the owner, on a browser they signed in
 * with before, is not refused (docs/decisions.md, "Sign-in throttling").
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { networkOfRateKey } from '../../http/client-addresses.js'
import type { RateLimiter } from '../../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../../http/rate-limits.js'
import { canonicalEmail } from '../../mail/email-address.js'

/** Attempts (sign-in or sign-up) one client address may make per minute. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10
/** Failed sign-ins per 15 minutes for an account from browsers it never signed in with. */
export const UNTRUSTED_FAILURES_PER_ACCOUNT = 10
/** Failed sign-ins per 15 minutes from one browser that once signed in to the account. */
export const FAILURES_PER_DEVICE = 10
/** How long the device cookie lives (its name: `cookieNames` in session-auth.ts). */
export const DEVICE_COOKIE_SECS = 365 * 24 * 3600

const WINDOW_MS = 15 * 60_000

/** Go ahead (with the device the attempt comes from, if trusted), or refuse with a message. */
export type SignInCheck =
  | { readonly ok: true; readonly device: string | null }
  | { readonly ok: false; readonly message: string }

/** Options of `new SignInGuard`. */
export interface SignInGuardOptions {
  /** Key of the device cookies' MACs (kept in the database, so it survives restarts). */
  readonly secret: string
  readonly now?: () => number
  /** Where the limits are kept (default: this process's own). */
  readonly limits?: RateLimits
}

/** Per-address, per-account and per-device limits on sign-in attempts. */
export class SignInGuard {
  readonly #secret: string
  readonly #addresses: RateLimiter
  readonly #accounts: RateLimiter
  /**
   * The same limit for emails no account has, kept apart: answered as an account's would be (so
   * the answer tells nobody which emails exist), but invented emails cannot push real accounts'
   * buckets out of theirs (each is bounded) and so refill them.
   */
  readonly #strangers: RateLimiter
  readonly #devices: RateLimiter

  constructor(opts: SignInGuardOptions) {
    const now = opts.now ?? Date.now
    this.#secret = opts.secret
    const limits = opts.limits ?? localRateLimits
    this.#addresses = limits.limiter('sign-in.address', {
      capacity: SIGN_IN_ATTEMPTS_PER_MINUTE,
      perMs: 60_000,
      now,
      overflowGroup: (key) => networkOfRateKey(key.slice('ip:'.length)),
    })
    this.#accounts = limits.limiter('sign-in.account', {
      capacity: UNTRUSTED_FAILURES_PER_ACCOUNT,
      perMs: WINDOW_MS,
      now,
    })
    this.#strangers = limits.limiter('sign-in.stranger', {
      capacity: UNTRUSTED_FAILURES_PER_ACCOUNT,
      perMs: WINDOW_MS,
      now,
    })
    this.#devices = limits.limiter('sign-in.device', {
      capacity: FAILURES_PER_DEVICE,
      perMs: WINDOW_MS,
      now,
    })
  }

  /** Spend one attempt of `address`; a message when it has none left. */
  attempt(address: string): string | null {
    const decision = this.#addresses.take(`ip:${address}`)
    return decision.ok
      ? null
      : `Too many attempts; try again in ${decision.retryAfterSecs} seconds.`
  }

  /**
   * May `email` be tried now, from a browser that sent `deviceCookie`? `stamp` names the
   * account's current password (`passwordStamp`; empty for an unknown email).
   */
  check(email: string, deviceCookie: string | undefined, stamp: string): SignInCheck {
    const key = emailKey(email)
    const device = this.#trustedDevice(key, deviceCookie, stamp)
    if (device !== null) {
      const d = this.#devices.peek(device)
      if (d.ok) return { ok: true, device }
      return {
        ok: false,
        message: `Too many failed sign-ins from this browser; try again in ${minutes(d.retryAfterSecs)}.`,
      }
    }
    const a = (stamp === '' ? this.#strangers : this.#accounts).peek(key)
    if (a.ok) return { ok: true, device: null }
    return {
      ok: false,
      message:
        `Too many failed sign-ins for this account; try again in ${minutes(a.retryAfterSecs)}, ` +
        'or from a browser you have signed in with before.',
    }
  }

  /**
   * A password for `email` was wrong (`stamp` as given to `check`). An email no account has
   * (an empty stamp) spends a bucket among strangers' emails, never among accounts'.
   */
  failed(email: string, device: string | null, stamp: string): void {
    if (device !== null) this.#devices.take(device)
    else (stamp === '' ? this.#strangers : this.#accounts).take(emailKey(email))
  }

  /** The device cookie value to set after a successful sign-in to `email` (password `stamp`). */
  deviceCookie(email: string, device: string | null, stamp: string): string {
    const id = device ?? randomBytes(16).toString('base64url')
    return `${id}.${this.#mac(id, emailKey(email), stamp)}`
  }

  /** The device id of `cookie` when a sign-in to `email` with its current password issued it. */
  trustedDevice(email: string, cookie: string | undefined, stamp: string): string | null {
    return this.#trustedDevice(emailKey(email), cookie, stamp)
  }

  /** The device id of `cookie` when it was issued for `key`'s account and `stamp`, else null. */
  #trustedDevice(key: string, cookie: string | undefined, stamp: string): string | null {
    if (cookie === undefined) return null
    const dot = cookie.indexOf('.')
    if (dot <= 0 || cookie.length > 200) return null
    const id = cookie.slice(0, dot)
    const given = Buffer.from(cookie.slice(dot + 1))
    const expected = Buffer.from(this.#mac(id, key, stamp))
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : null
  }

  #mac(id: string, key: string, stamp: string): string {
    return createHmac('sha256', this.#secret).update(`${id}|${key}|${stamp}`).digest('base64url')
  }
}

function emailKey(email: string): string {
  return createHash('sha256').update(canonicalEmail(email)).digest('base64url')
}

function minutes(secs: number): string {
  return secs < 90 ? `${secs} seconds` : `${Math.ceil(secs / 60)} minutes`
}
