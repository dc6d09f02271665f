/**
 * The routes of account recovery: `/forgot` (ask for a reset link), `/reset` (choose a new
 * password with one), `/verify` (confirm the address with a link), and the signed-in
 * `POST /dashboard/account/verify` that sends a new verification link. The public forms use the
 * pre-session CSRF token and Origin check of sign-in; asking for a link is rate limited per client
 * address and per account (`AccountRecovery`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AccountRecovery } from '../account-recovery.js'
import { endEarlierHolder, type ReplacedKey } from '../earlier-holder.js'
import { HttpError } from '../../http/http-error.js'
import { readForm } from '../../http/request-body.js'
import { redirect } from '../../http/responses.js'
import { checkOrigin, sameSecret } from '../session-auth.js'
import { toHttpError } from '../store-error-status.js'
import type { DashboardKit, DashboardRoute } from './dashboard-kit.js'
import { DEVICE_COOKIE_SECS } from './sign-in-guard.js'
import { newFormToken } from './form-token.js'
import {
  deadLinkPage,
  forgotPage,
  forgotSentPage,
  recoveredPage,
  resetPage,
  verifiedPage,
  verifySignInPage,
} from './recovery-pages.js'
import { asSentence } from './as-sentence.js'
import { endReplacedSession } from './replaced-session.js'

/** Seconds a session cookie lives, as sign-in sets it. */
const SESSION_COOKIE_SECS = 30 * 24 * 3600
/** The paths served here before sign-in. */
const PUBLIC_PATHS = new Set(['/forgot', '/reset', '/verify'])

/** Serves the recovery pages over `recovery`. */
export class DashboardRecovery {
  readonly #kit: DashboardKit
  readonly #recovery: AccountRecovery

  constructor(kit: DashboardKit, recovery: AccountRecovery) {
    this.#kit = kit
    this.#recovery = recovery
  }

  /** Whether `path` is one of the public recovery pages. */
  handles(path: string): boolean {
    return PUBLIC_PATHS.has(path)
  }

  /** Answer a request for one of the public recovery pages. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    const method = req.method ?? 'GET'
    if (path === '/verify') {
      if (method !== 'GET') throw new HttpError(405, 'method_not_allowed', '/verify accepts GET')
      return this.#verify(req, res, query.get('token') ?? '')
    }
    if (method === 'GET') {
      const token = newFormToken()
      const cookies = [this.#kit.cookie(this.#kit.cookies.form, token)]
      if (path === '/forgot') return this.#kit.html(res, 200, forgotPage(token), cookies)
      const link = query.get('token') ?? ''
      const email = await this.#recovery.resetHolder(link)
      if (email === undefined) return this.#kit.html(res, 400, deadLinkPage('reset'))
      return this.#kit.html(res, 200, resetPage(token, link, email), cookies)
    }
    if (method !== 'POST')
      throw new HttpError(405, 'method_not_allowed', `${path} accepts GET and POST`)
    const form = await readForm(req)
    if (path === '/forgot') return this.#forgot(req, res, form)
    return this.#reset(req, res, form)
  }

  /**
   * A verification link confirms only in a browser signed in to its account; elsewhere it asks
   * for that sign-in, and tells an address's owner who never signed up how to take the account.
   */
  async #verify(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const holder = await this.#recovery.verificationHolder(token)
    if (!holder) return this.#kit.html(res, 400, deadLinkPage('verify'))
    const caller = await this.#kit.browserCaller(req)
    if (caller?.accountId !== holder.accountId) {
      return this.#kit.html(res, 200, verifySignInPage(token, holder.email, caller !== null))
    }
    const confirmed = await this.#recovery.verify(token, caller.accountId)
    if (!confirmed) return this.#kit.html(res, 400, deadLinkPage('verify'))
    // Only the account's own browser gets here: its menu is the signed-in one.
    const account = await this.#kit.svc.accounts.get(caller.accountId)
    const viewer = account
      ? { email: account.email, slug: account.slug, csrfToken: caller.csrfToken }
      : null
    this.#kit.html(res, 200, verifiedPage(confirmed.email, viewer))
  }

  async #forgot(req: IncomingMessage, res: ServerResponse, form: URLSearchParams): Promise<void> {
    const email = (form.get('email') ?? '').slice(0, 320)
    const again = (status: number, message: string) => {
      const token = newFormToken()
      this.#kit.html(res, status, forgotPage(token, email, [{ kind: 'error', text: message }]), [
        this.#kit.cookie(this.#kit.cookies.form, token),
      ])
    }
    if (!this.#formOk(req, form)) return again(403, 'The form expired; please try again.')
    // Browsers that signed in to the account before share a mail allowance of their own (the
    // password's stamp is read only for a browser with a device cookie, so the answer's time
    // says nothing of whether the address has an account).
    const device = this.#kit.deviceCookie(req)
    const trusted =
      device !== undefined &&
      this.#kit.opts.signInGuard.trustedDevice(
        email,
        device,
        await this.#kit.svc.accounts.passwordStamp(email),
      ) !== null
    const asked = this.#recovery.requestReset(email, this.#kit.opts.addresses.of(req), trusted)
    if (!asked.ok) {
      res.setHeader('retry-after', String(asked.retryAfterSecs))
      return again(
        429,
        `Too many requests from your address or network; try again in ${asked.retryAfterSecs} s.`,
      )
    }
    this.#kit.html(res, 200, forgotSentPage(this.#recovery.outboxFor(req)), [
      this.#kit.cookie(this.#kit.cookies.form, '', 0),
    ])
  }

  async #reset(req: IncomingMessage, res: ServerResponse, form: URLSearchParams): Promise<void> {
    const link = form.get('token') ?? ''
    /** The form again with `message`, naming the account; a dead link's page once it died. */
    const again = async (status: number, message: string) => {
      const email = await this.#recovery.resetHolder(link)
      if (email === undefined) return this.#kit.html(res, 400, deadLinkPage('reset'))
      const token = newFormToken()
      this.#kit.html(
        res,
        status,
        resetPage(token, link, email, [{ kind: 'error', text: asSentence(message) }]),
        [this.#kit.cookie(this.#kit.cookies.form, token)],
      )
    }
    if (!this.#formOk(req, form)) return again(403, 'The form expired; please try again.')
    let done
    let replaced: ReplacedKey[] = []
    try {
      done = await this.#recovery.resetPassword(link, form.get('password') ?? '', async (id) => {
        replaced = await endEarlierHolder(this.#kit.svc, id)
      })
    } catch (err) {
      const e = toHttpError(err)
      return again(e.status, e.message)
    }
    const session = await this.#kit.svc.sessions.create(done.accountId)
    await endReplacedSession(this.#kit, req)
    const cookies = [
      this.#kit.cookie(this.#kit.cookies.session, session.token, SESSION_COOKIE_SECS),
      this.#kit.cookie(this.#kit.cookies.form, '', 0),
    ]
    // The new password voided every device cookie; this browser proved the mailbox: it is known.
    const account = await this.#kit.svc.accounts.get(done.accountId)
    if (account) {
      const stamp = await this.#kit.svc.accounts.passwordStamp(account.email)
      const device = this.#kit.opts.signInGuard.deviceCookie(account.email, null, stamp)
      cookies.push(this.#kit.cookie(this.#kit.cookies.device, device, DEVICE_COOKIE_SECS))
    }
    if (done.wasVerified) return redirect(res, '/dashboard?notice=password_reset', { cookies })
    const keys = replaced.map((r) => ({ name: r.tunnel.name ?? r.tunnel.subdomain, key: r.key }))
    this.#kit.html(res, 200, recoveredPage(keys), cookies)
  }

  /** The Origin is ours and the form token matches its cookie. */
  #formOk(req: IncomingMessage, form: URLSearchParams): boolean {
    checkOrigin(req)
    const cookie = this.#kit.formCookie(req)
    const field = form.get('_csrf')
    return cookie !== undefined && field !== null && sameSecret(cookie, field)
  }
}

/** The signed-in route that mails a new verification link. */
export function verifyRoutes(
  kit: DashboardKit,
  recovery: AccountRecovery | null,
): DashboardRoute[] {
  if (recovery === null) return []
  return [
    {
      method: 'POST',
      pattern: /^\/dashboard\/account\/verify$/,
      handler: async (c) => {
        await kit.form(c)
        const sent = recovery.sendVerification(
          c.account.id,
          c.account.email,
          kit.opts.addresses.of(c.req),
        )
        redirect(c.res, `/dashboard?notice=${sent ? 'verify_sent' : 'verify_limited'}`, {
          status: 303,
        })
      },
    },
  ]
}
