/**
 * What every dashboard page shares: the options, the signed-in request's context, and the
 * helpers that send pages, set cookies, read CSRF-checked forms and show the fixed notices.
 * The route files (dashboard-*-routes.ts) build their handlers on it; dashboard.ts routes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ClientAddresses } from '../../http/client-addresses.js'
import type { SignInGuard } from './sign-in-guard.js'
import type { AccountRecovery } from '../account-recovery.js'
import { parseCookies, serializeCookie } from '../../http/cookies.js'
import type { html } from '../../http/html.js'
import type { Notice, Viewer } from './layout.js'
import { readForm } from '../../http/request-body.js'
import { sendHtml } from '../../http/responses.js'
import { checkCsrf, cookieNames, identify, type Caller, type CookieNames } from '../session-auth.js'
import type { AccountView, WebServices } from '../web-services.js'
import { TailSessions } from './live-tail-stream.js'
import { PasswordWork } from './password-work.js'

/** Options of `new Dashboard`. */
export interface DashboardOptions {
  readonly services: WebServices
  /** The tunnel zone, shown in URL examples. */
  readonly zone: string
  /**
   * The `--broker` that "Run it" commands name, or null when it is the client's default
   * (`ws://127.0.0.1:7100`, or `localhost` on that port).
   */
  readonly broker?: string | null
  /** Whether the service host is reached over https (Secure cookies, HSTS). */
  readonly https: boolean
  /** Limits sign-in and sign-up attempts per client address, account and device. */
  readonly signInGuard: SignInGuard
  /** The node's gate in front of password hashing (default: its own, at the usual bounds). */
  readonly passwordWork?: PasswordWork
  /** Who sent a request, behind the trusted proxies. */
  readonly addresses: ClientAddresses
  /** Password resets and email verification by mail; null or absent: not offered. */
  readonly recovery?: AccountRecovery | null
  readonly now?: () => Date
}

/** A caller signed in with a browser session. */
export type SessionCaller = Caller & { via: 'session' }

/** A request to a signed-in page, with what the router found out about it. */
export interface DashboardRequest {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly caller: SessionCaller
  readonly account: AccountView
  readonly viewer: Viewer
  /** The route pattern's captures, e.g. a tunnel id. */
  readonly params: readonly string[]
  readonly query: URLSearchParams
}

/** One signed-in page or form action. */
export interface DashboardRoute {
  readonly method: 'GET' | 'POST'
  readonly pattern: RegExp
  readonly handler: (c: DashboardRequest) => Promise<void>
}

/** Fixed notices shown after a redirect (`?notice=`), so no user text travels in URLs. */
const NOTICES: Readonly<Record<string, Notice>> = {
  renamed: { kind: 'info', text: 'Tunnel renamed.' },
  deleted: { kind: 'info', text: 'Tunnel deleted; its client was disconnected.' },
  serving: { kind: 'info', text: 'Saved: the chosen tunnels serve, the others are stopped.' },
  cancelled: {
    kind: 'info',
    text: 'Subscription cancelled. Paid limits stay until the end of the period.',
  },
  cycle: { kind: 'info', text: 'Billing cycle changed.' },
  plan_changed: {
    kind: 'info',
    text: 'Plan changed: its limits apply now, and the payment provider billed or credited the difference for the rest of this period.',
  },
  policy: { kind: 'info', text: 'Policy saved: it applies from the next request.' },
  tool_approved: {
    kind: 'info',
    text: 'Approved: agents see and call this definition from their next request.',
  },
  tool_rejected: {
    kind: 'info',
    text: 'Rejected: the tool is hidden from agents and its calls refused until its definition changes back or you approve it.',
  },
  tool_not_pending: {
    kind: 'warn',
    text: 'Nothing was rejected: this tool no longer waits for a decision (it was decided elsewhere since this page was shown). Its status is below.',
  },
  tool_stale: {
    kind: 'warn',
    text: 'The tool changed again since this page was shown: nothing was decided. Review it again.',
  },
  checkout: {
    kind: 'info',
    text: 'Payment received. Your new plan applies as soon as the payment provider confirms it (usually within seconds).',
  },
  revoked: { kind: 'info', text: 'Token revoked.' },
  password_reset: {
    kind: 'info',
    text: 'Your new password is set. Every other browser signed in to this account was signed out.',
  },
  password_changed: {
    kind: 'info',
    text: 'Your new password is set. Every other browser signed in to this account was signed out.',
  },
  signed_out_others: {
    kind: 'info',
    text: 'Every other browser signed in to this account was signed out.',
  },
  verify_sent: { kind: 'info', text: 'We sent a new confirmation link to your email address.' },
  verify_limited: {
    kind: 'warn',
    text: 'We did not send a new link: too many went to this address or from your network this hour. Use the newest one you have, or try again later.',
  },
  verify_deferred: {
    kind: 'warn',
    text: 'Your account is ready, but we did not send a confirmation link now: too many went to this address or from your network this hour. Send a new link later.',
  },
  endpoint_deleted: { kind: 'info', text: 'Endpoint deleted.' },
  endpoint_enabled: { kind: 'info', text: 'Endpoint enabled again.' },
  secret_rotated: {
    kind: 'info',
    text: 'New signing secret below. For 24 hours deliveries carry a signature with the previous secret too: switch your receiver to the new one meanwhile.',
  },
  domain_added: {
    kind: 'info',
    text: 'Domain added. Create the DNS records below, then check it.',
  },
  domain_verified: { kind: 'info', text: 'Verified: the domain serves this tunnel.' },
  domain_pending: {
    kind: 'warn',
    text: 'Not verified yet: the records below are not all in DNS. Changes can take a few minutes to appear.',
  },
  domain_removed: { kind: 'info', text: 'Domain removed; it no longer reaches this tunnel.' },
}

/** The device cookie's name before the `__Host-` prefix, read as a fallback over https. */
const LEGACY_DEVICE_COOKIE = 'burrow_device'

/** The dashboard's shared helpers. */
export class DashboardKit {
  readonly opts: DashboardOptions
  /** The names of the cookies it sets and reads (`__Host-` prefixed over https). */
  readonly cookies: CookieNames
  /** Sign-ins and sign-ups hash passwords through this. */
  readonly passwordWork: PasswordWork
  readonly svc: WebServices
  readonly now: () => Date
  /** The live tails open per browser session, ended at sign-out. */
  readonly tails = new TailSessions()

  constructor(opts: DashboardOptions) {
    this.opts = opts
    this.cookies = cookieNames(opts.https)
    this.passwordWork = opts.passwordWork ?? new PasswordWork()
    this.svc = opts.services
    this.now = opts.now ?? (() => new Date())
  }

  /** Send an HTML page with the dashboard's security headers. */
  html(res: ServerResponse, status: number, body: ReturnType<typeof html>, cookies?: string[]) {
    sendHtml(res, status, body, {
      https: this.opts.https,
      formActionOrigins: this.svc.billing.checkoutOrigins,
      ...(cookies ? { cookies } : {}),
    })
  }

  /** A Set-Cookie value, Secure over https. */
  cookie(name: string, value: string, maxAgeSecs?: number): string {
    return serializeCookie(name, value, {
      secure: this.opts.https,
      ...(maxAgeSecs !== undefined ? { maxAgeSecs } : {}),
    })
  }

  /**
   * Set the session cookie again to end with the session, whose expiry slides as it is used:
   * the cookie sign-in set ends 30 days after it, however often the browser came back since.
   */
  keepSession(res: ServerResponse, caller: SessionCaller): void {
    if (caller.expiresAt === undefined) return
    const secs = Math.floor((caller.expiresAt.getTime() - this.now().getTime()) / 1000)
    if (secs > 0)
      res.setHeader('set-cookie', this.cookie(this.cookies.session, caller.sessionToken, secs))
  }

  /**
   * The device cookie `req` carries. Over https, a browser that signed in before the names took
   * the `__Host-` prefix holds it under the plain name: it is read there too (only when the
   * prefixed one is absent), so that the owner's browsers stay known to sign-in throttling across
   * the upgrade. Its value is bound to the account and password by a MAC (`sign-in-guard.ts`),
   * so one planted under that name by another host helps no one but an account's owner.
   */
  deviceCookie(req: IncomingMessage): string | undefined {
    const cookies = parseCookies(req.headers.cookie)
    return (
      cookies.get(this.cookies.device) ??
      (this.opts.https ? cookies.get(LEGACY_DEVICE_COOKIE) : undefined)
    )
  }

  /** The pre-session form token `req` carries. */
  formCookie(req: IncomingMessage): string | undefined {
    return parseCookies(req.headers.cookie).get(this.cookies.form)
  }

  /** The session token `req` carries (valid or not). */
  sessionCookie(req: IncomingMessage): string | undefined {
    return parseCookies(req.headers.cookie).get(this.cookies.session)
  }

  /** A state-changing form post: its fields, after the CSRF check. */
  async form(c: DashboardRequest): Promise<URLSearchParams> {
    const form = await readForm(c.req)
    checkCsrf(c.req, c.caller, form.get('_csrf'))
    return form
  }

  /** The fixed notice a redirect asked for (`?notice=`), if any. */
  notices(c: DashboardRequest): Notice[] {
    const key = c.query.get('notice')
    const notice = key && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined
    return notice ? [notice] : []
  }

  /** The caller when the request carries a valid browser session, else null. */
  async browserCaller(req: IncomingMessage): Promise<SessionCaller | null> {
    const caller = await identify(
      req,
      {
        findSession: (t) => this.svc.sessions.find(t),
        authenticateToken: () => Promise.resolve(undefined),
      },
      this.cookies.session,
    ).catch(() => null)
    return caller?.via === 'session' ? caller : null
  }
}
