/**
 * The dashboard: sign-up, sign-in and sign-out (dashboard-auth.ts), the public pricing page, and
 * the signed-in pages under `/dashboard` (tunnels, billing, API tokens, webhooks; the route
 * files). Server-rendered HTML forms, each protected by the session's CSRF token; every read and
 * change is scoped to the signed-in account. This file routes and renders errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { billingRoutes, tokenRoutes, webhookRoutes } from './dashboard-account-routes.js'
import { accountRoutes } from './dashboard-account-settings.js'
import { DashboardAuth } from './dashboard-auth.js'
import { DashboardRecovery, verifyRoutes } from './dashboard-recovery.js'
import {
  DashboardKit,
  type DashboardOptions,
  type DashboardRoute,
  type SessionCaller,
} from './dashboard-kit.js'
import { tunnelRoutes } from './dashboard-tunnel-routes.js'
import { governanceRoutes } from './dashboard-governance-routes.js'
import { domainRoutes } from './dashboard-domain-routes.js'
import { accessRoutes } from './dashboard-access-routes.js'
import { html } from '../../http/html.js'
import { HttpError } from '../../http/http-error.js'
import { page, type Viewer } from './layout.js'
import { pricingPage } from './pricing-page.js'
import { urlFormOf } from './auth-pages.js'
import { redirect } from '../../http/responses.js'
import { toHttpError } from '../store-error-status.js'
import type { AccountView } from '../web-services.js'
import { actingCredential } from '../session-auth.js'
import { actAs } from '../../store/acting-credential.js'
import { asSentence } from './as-sentence.js'

export type { DashboardOptions } from './dashboard-kit.js'

/** Serves the dashboard and its public pages. */
export class Dashboard {
  readonly #kit: DashboardKit
  readonly #auth: DashboardAuth
  readonly #recovery: DashboardRecovery | null
  readonly #routes: readonly DashboardRoute[]

  constructor(opts: DashboardOptions) {
    this.#kit = new DashboardKit(opts)
    this.#auth = new DashboardAuth(this.#kit)
    this.#recovery = opts.recovery ? new DashboardRecovery(this.#kit, opts.recovery) : null
    this.#routes = [
      ...verifyRoutes(this.#kit, opts.recovery ?? null),
      ...tunnelRoutes(this.#kit),
      ...governanceRoutes(this.#kit),
      ...domainRoutes(this.#kit),
      ...accessRoutes(this.#kit),
      ...billingRoutes(this.#kit),
      ...tokenRoutes(this.#kit),
      ...accountRoutes(this.#kit),
      ...webhookRoutes(this.#kit),
    ]
  }

  /** Handle `path` if it is a dashboard or public page; false when it is not one of ours. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<boolean> {
    const method = req.method ?? 'GET'
    try {
      if (path === '/pricing' && method === 'GET') {
        const caller = await this.#kit.browserCaller(req)
        const viewer = caller ? await this.#viewer(caller, req) : null
        this.#kit.html(
          res,
          200,
          pricingPage(
            viewer?.viewer ?? null,
            urlFormOf((sub, slug) => this.#kit.svc.publicUrl(sub, slug)),
          ),
        )
        return true
      }
      if (this.#recovery?.handles(path)) {
        await this.#recovery.handle(req, res, path, query)
        return true
      }
      if (path === '/signup' || path === '/signin') {
        if (method === 'GET') await this.#auth.form(req, res, path)
        else if (method === 'POST')
          await (path === '/signup' ? this.#auth.signUp(req, res) : this.#auth.signIn(req, res))
        else throw new HttpError(405, 'method_not_allowed', `${path} accepts GET and POST`)
        return true
      }
      if (path === '/signout' && method === 'POST') {
        await this.#auth.signOut(req, res)
        return true
      }
      if (path === '/' && method === 'GET' && accepts(req, 'text/html')) {
        await this.#auth.landing(req, res)
        return true
      }
      if (path !== '/dashboard' && !path.startsWith('/dashboard/')) {
        // A browser sent to a mistyped address gets a page with the menu, not the JSON refusal.
        if (method === 'GET' && accepts(req, 'text/html') && !isApiPath(path)) {
          throw new HttpError(404, 'not_found', `nothing is served at ${path}`)
        }
        return false
      }
      const route = this.#routes.find((r) => r.method === method && r.pattern.test(path))
      if (!route) throw new HttpError(404, 'not_found', `nothing is served at ${path}`)
      const caller = await this.#kit.browserCaller(req)
      if (!caller) {
        redirect(res, '/signin', { status: method === 'GET' ? 302 : 303 })
        return true
      }
      const found = await this.#viewer(caller, req)
      if (!found) {
        redirect(res, '/signin', { status: 303 })
        return true
      }
      this.#kit.keepSession(res, caller)
      const params = (route.pattern.exec(path) ?? []).slice(1)
      await actAs(actingCredential(caller), () =>
        route.handler({
          req,
          res,
          caller,
          account: found.account,
          viewer: found.viewer,
          params,
          query,
        }),
      )
      return true
    } catch (err) {
      const e = toHttpError(err)
      const wait = e.details.retry_after_secs
      if (typeof wait === 'number') res.setHeader('retry-after', String(wait))
      // The page keeps the signed-in menu when the browser is signed in.
      const viewer = await this.viewerFor(req)
      this.#kit.html(
        res,
        e.status,
        page(
          { title: 'Error', viewer, notices: [{ kind: 'error', text: asSentence(e.message) }] },
          viewer
            ? html`<p><a href="/dashboard">Back to the dashboard</a></p>`
            : html`<p><a href="/">Burrow's home page</a> · <a href="/signin">Sign in</a></p>`,
        ),
      )
      return true
    }
  }

  /**
   * What the page header shows of the browser signed in with `req`'s session, or null when none
   * is (or the session cannot be read now): for pages served outside the dashboard.
   */
  async viewerFor(req: IncomingMessage): Promise<Viewer | null> {
    const caller = await this.#kit.browserCaller(req).catch(() => null)
    if (!caller) return null
    return (await this.#viewer(caller, req).catch(() => null))?.viewer ?? null
  }

  /** The signed-in account and what the page header shows of it, or null when it is gone. */
  async #viewer(
    caller: SessionCaller,
    req: IncomingMessage,
  ): Promise<{ account: AccountView; viewer: Viewer } | null> {
    const account = await this.#kit.svc.accounts.get(caller.accountId)
    if (!account) return null
    const recovery = this.#kit.opts.recovery
    const unverified = recovery ? !(await recovery.isVerified(account.id)) : false
    const outbox = unverified && recovery ? recovery.outboxFor(req) : null
    return {
      account,
      viewer: {
        email: account.email,
        slug: account.slug,
        csrfToken: caller.csrfToken,
        unverified,
        outbox,
      },
    }
  }
}

function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/')
}

function accepts(req: IncomingMessage, type: string): boolean {
  return (req.headers.accept ?? '').includes(type)
}
