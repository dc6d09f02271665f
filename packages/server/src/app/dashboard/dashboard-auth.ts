/**
 * Sign-up, sign-in and sign-out: the dashboard's forms before a session exists. They carry a
 * pre-session CSRF token (a cookie and a form field that must match), check Origin, and are
 * rate limited per client address; failed sign-ins also per account or device (sign-in-guard.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { labelProblem } from '@burrow/protocol'
import { landingPage, signInPage, signUpPage, urlFormOf } from './auth-pages.js'
import { DEVICE_COOKIE_SECS } from './sign-in-guard.js'
import type { DashboardKit } from './dashboard-kit.js'
import { newFormToken } from './form-token.js'
import { returnPath } from './return-path.js'
import { canonicalEmail } from '../../mail/email-address.js'
import { readForm } from '../../http/request-body.js'
import { redirect } from '../../http/responses.js'
import { checkCsrf, checkOrigin, sameSecret } from '../session-auth.js'
import { toHttpError } from '../store-error-status.js'
import type { AccountView } from '../web-services.js'
import { asSentence } from './as-sentence.js'
import { endReplacedSession } from './replaced-session.js'

/** The answer when the node has as many password checks waiting as it takes (password-work.ts). */
const BUSY =
  'Too many sign-ins are in progress right now; try again in a few seconds. A browser you have signed in with before is served first.'

const BUSY_SIGN_UP =
  'Too many sign-ups and sign-ins are in progress right now; try again in a few seconds.'

/** Seconds a session cookie lives (the server-side session expires on its own terms too). */
/** How long the session cookie a sign-in sets lives. */
export const SESSION_COOKIE_SECS = 30 * 24 * 3600

/** The pages and posts of signing up, in and out. */
export class DashboardAuth {
  readonly #kit: DashboardKit

  constructor(kit: DashboardKit) {
    this.#kit = kit
  }

  /** `/`: the landing page, or the dashboard for a signed-in browser. */
  async landing(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.#kit.browserCaller(req)) redirect(res, '/dashboard', { status: 302 })
    else this.#kit.html(res, 200, landingPage(this.#urlForm()))
  }

  /** GET `/signup` or `/signin`. */
  async form(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const next = returnPath(new URL(req.url ?? '/', 'http://x.invalid').searchParams.get('next'))
    // A verification link sends here a browser signed in to another account than the link's:
    // it gets the form (signing in replaces that session), not a redirect back to the link.
    if (!next?.startsWith('/verify?') && (await this.#kit.browserCaller(req))) {
      redirect(res, next ?? '/dashboard', { status: 302 })
      return
    }
    const token = newFormToken()
    const body =
      path === '/signup' ? signUpPage(token, this.#urlForm()) : signInPage(token, {}, [], next)
    this.#kit.html(res, 200, body, [this.#kit.cookie(this.#kit.cookies.form, token)])
  }

  /** POST `/signup`. */
  async signUp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const values = { email: form.get('email') ?? '', slug: (form.get('slug') ?? '').trim() }
    const token = newFormToken()
    const again = (status: number, message: string) =>
      this.#kit.html(
        res,
        status,
        signUpPage(token, this.#urlForm(), values, [{ kind: 'error', text: asSentence(message) }]),
        [this.#kit.cookie(this.#kit.cookies.form, token)],
      )
    const refused = this.#refusal(req, form)
    if (refused) return again(refused.startsWith('Too many') ? 429 : 403, refused)
    const slugProblem = labelProblem('slug', values.slug)
    if (slugProblem !== null) return again(400, asAccountName(slugProblem))
    let account: AccountView
    try {
      const made = await this.#kit.passwordWork.run('other', () =>
        this.#kit.svc.accounts.create({
          email: values.email,
          slug: values.slug,
          password: form.get('password') ?? '',
        }),
      )
      if (made === null) return again(503, BUSY_SIGN_UP)
      account = made.value
    } catch (err) {
      const e = toHttpError(err)
      return again(e.status, asAccountName(e.message))
    }
    const client = this.#kit.opts.addresses.of(req)
    const mailed = this.#kit.opts.recovery?.sendVerification(account.id, account.email, client)
    // The account is made either way; its owner is told when no link went (the banner's
    // "Send a new link" works once the allowance that refused it refills).
    const to = mailed === false ? '/dashboard?notice=verify_deferred' : '/dashboard'
    await this.#startSession(req, res, account.id, to)
  }

  /** POST `/signin`. */
  async signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const values = { email: form.get('email') ?? '' }
    const next = returnPath(form.get('next'))
    const token = newFormToken()
    const again = (status: number, message: string) =>
      this.#kit.html(
        res,
        status,
        signInPage(token, values, [{ kind: 'error', text: message }], next),
        [this.#kit.cookie(this.#kit.cookies.form, token)],
      )
    const refused = this.#refusal(req, form)
    if (refused) return again(refused.startsWith('Too many') ? 429 : 403, refused)
    const guard = this.#kit.opts.signInGuard
    const device = this.#kit.deviceCookie(req)
    const accounts = this.#kit.svc.accounts
    const stamp = await accounts.passwordStamp(values.email)
    const check = guard.check(values.email, device, stamp)
    if (!check.ok) return again(429, check.message)
    // A browser the account knows waits in a lane of its own: strangers' hashes do not hold it.
    const verified = await this.#kit.passwordWork.run(
      check.device === null ? 'other' : 'known',
      () => accounts.verifyLogin(values.email, form.get('password') ?? ''),
      canonicalEmail(values.email),
    )
    if (verified === null) return again(503, BUSY)
    const account = verified.value
    if (!account) {
      guard.failed(values.email, check.device, stamp)
      return again(401, 'Wrong email or password.')
    }
    const trusted = this.#kit.cookie(
      this.#kit.cookies.device,
      guard.deviceCookie(values.email, check.device, stamp),
      DEVICE_COOKIE_SECS,
    )
    await this.#startSession(req, res, account.id, next ?? '/dashboard', [trusted], stamp)
  }

  /**
   * POST `/signout`. The cookie is cleared only with the session, after the CSRF check: a post
   * that came with no session may be another site's form, sent without the cookie (SameSite=Lax),
   * and clearing it then let any page sign the browser out.
   */
  async signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const caller = await this.#kit.browserCaller(req)
    if (!caller) return redirect(res, '/signin')
    const form = await readForm(req)
    checkCsrf(req, caller, form.get('_csrf'))
    await this.#kit.svc.sessions.delete(caller.sessionToken)
    this.#kit.tails.end(caller.sessionToken)
    redirect(res, '/signin', { cookies: [this.#kit.cookie(this.#kit.cookies.session, '', 0)] })
  }

  /**
   * Why a sign-up or sign-in post is refused before its fields are looked at (a foreign Origin
   * throws; an expired form or the rate limit is a message), or null.
   */
  #refusal(req: IncomingMessage, form: URLSearchParams): string | null {
    checkOrigin(req)
    const cookie = this.#kit.formCookie(req)
    const field = form.get('_csrf')
    if (!cookie || !field || !sameSecret(cookie, field)) {
      return 'The form expired; please try again.'
    }
    return this.#kit.opts.signInGuard.attempt(this.#kit.opts.addresses.rateKey(req))
  }

  /** This service's public URL form, for the sign-up hint and the landing page. */
  #urlForm() {
    return urlFormOf((subdomain, slug) => this.#kit.svc.publicUrl(subdomain, slug))
  }

  /** Sign `accountId` in on this browser, ending the session it had (`replaced-session.ts`). */
  async #startSession(
    req: IncomingMessage,
    res: ServerResponse,
    accountId: string,
    to: string,
    cookies: readonly string[] = [],
    passwordStamp?: string,
  ): Promise<void> {
    const session = await this.#kit.svc.sessions.create(accountId, passwordStamp)
    await endReplacedSession(this.#kit, req)
    redirect(res, to, {
      cookies: [
        this.#kit.cookie(this.#kit.cookies.session, session.token, SESSION_COOKIE_SECS),
        this.#kit.cookie(this.#kit.cookies.form, '', 0),
        ...cookies,
      ],
    })
  }
}

/** A store message about the slug, in the words of the form ("Account name"). */
function asAccountName(message: string): string {
  return message.replace(/^(?:account )?slug\b/, 'Account name')
}
