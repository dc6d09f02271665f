/**
 * Who is calling the service host, and whether a state-changing request may proceed. Browsers
 * carry a session cookie and must echo the session's CSRF token (form field `_csrf` or header
 * `x-csrf-token`) and, when they send an Origin, it must be ours. API clients send
 * `Authorization: Bearer btk_…` and need no CSRF token (a browser never attaches it by itself).
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { parseCookies } from '../http/cookies.js'
import { HttpError } from '../http/http-error.js'
import type { ActingCredential } from '../store/acting-credential.js'

/** The names of the cookies the service sets, from `cookieNames`. */
export interface CookieNames {
  /** The browser session. */
  readonly session: string
  /** The pre-session CSRF token of the sign-up, sign-in and recovery forms. */
  readonly form: string
  /** The device cookie of sign-in throttling (`dashboard/sign-in-guard.ts`). */
  readonly device: string
}

/**
 * The cookies' names. Over https they carry the `__Host-` prefix, which a browser accepts only
 * from the host itself, over a secure connection, with Secure, `Path=/` and no `Domain`: no other
 * host under the zone (a tunnel's; a name a network attacker answers over plain http) can set a
 * cookie of that name that reaches the service host, so none can plant a session (its own, to
 * have the owner work in the attacker's account) or shadow one. Over http (local development)
 * browsers refuse the prefix, which needs Secure: the names stay plain there.
 */
export function cookieNames(https: boolean): CookieNames {
  const prefix = https ? '__Host-' : ''
  return Object.freeze({
    session: `${prefix}burrow_session`,
    form: `${prefix}burrow_form`,
    device: `${prefix}burrow_device`,
  })
}

/** What identifying a caller needs from the stores. */
export interface AuthLookups {
  findSession(
    token: string,
  ): Promise<{ accountId: string; csrfToken: string; expiresAt?: Date } | undefined>
  authenticateToken(secret: string): Promise<{ accountId: string; tokenId: string } | undefined>
}

/** An identified caller. */
export type Caller =
  | {
      readonly via: 'session'
      readonly accountId: string
      readonly csrfToken: string
      readonly sessionToken: string
      /** When the session ends unless used again, when the lookup says. */
      readonly expiresAt?: Date
    }
  | { readonly via: 'token'; readonly accountId: string; readonly tokenId: string }

/**
 * The caller of `req`, or null when it carries no valid credentials. A bearer token that is
 * present but wrong is an error (401), not an anonymous call. `sessionCookie` is the session
 * cookie's name (`cookieNames(https).session`).
 */
export async function identify(
  req: IncomingMessage,
  lookups: AuthLookups,
  sessionCookie: string,
): Promise<Caller | null> {
  const auth = req.headers.authorization
  if (auth !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(auth)
    const found = match?.[1] ? await lookups.authenticateToken(match[1]) : undefined
    if (!found) throw new HttpError(401, 'unauthorized', refusedToken(match?.[1] ?? null))
    return { via: 'token', accountId: found.accountId, tokenId: found.tokenId }
  }
  const token = parseCookies(req.headers.cookie).get(sessionCookie)
  if (!token) return null
  const session = await lookups.findSession(token)
  if (!session) return null
  return {
    via: 'session',
    accountId: session.accountId,
    csrfToken: session.csrfToken,
    sessionToken: token,
    ...(session.expiresAt ? { expiresAt: session.expiresAt } : {}),
  }
}

/**
 * Why a bearer credential was refused, in words that help: a tunnel key or an agent token sent to
 * the API by mistake is named as what it is (from its prefix only; nothing is looked up), and a
 * header without the Bearer scheme says how to write it.
 */
function refusedToken(token: string | null): string {
  const make = 'create an API token (btk_…) in the dashboard under API tokens'
  if (token === null) return `send the API token as "Authorization: Bearer btk_…"; ${make}`
  if (token.startsWith('mtk_'))
    return `that is a tunnel key (mtk_…), which "burrow up" uses; the API takes an API token: ${make}`
  if (token.startsWith('atk_'))
    return `that is an agent token (atk_…), which agents send to a tunnel; the API takes an API token: ${make}`
  return `the API token is unknown or was revoked; ${make}`
}

/** The credential `caller` acts with, for the store to check again (`acting-credential.ts`). */
export function actingCredential(caller: Caller): ActingCredential {
  return caller.via === 'session'
    ? { kind: 'session', token: caller.sessionToken }
    : { kind: 'api_token', id: caller.tokenId }
}

/** True when two secrets are equal, compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Refuse a state-changing browser request that does not prove it came from our own pages: a
 * foreign Origin, or a missing or wrong CSRF token. Token callers pass.
 */
export function checkCsrf(
  req: IncomingMessage,
  caller: Caller,
  supplied: string | null | undefined,
): void {
  if (caller.via === 'token') return
  checkOrigin(req)
  if (!supplied || !sameSecret(supplied, caller.csrfToken)) {
    throw new HttpError(
      403,
      'csrf_failed',
      'the form expired or did not come from this site; reload the page and try again',
    )
  }
}

/** Refuse a request whose Origin header names another site. */
export function checkOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin
  if (origin === undefined || origin === 'null') return
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    throw new HttpError(403, 'csrf_failed', 'the request came from another site')
  }
  if (host !== req.headers.host)
    throw new HttpError(403, 'csrf_failed', 'the request came from another site')
}
