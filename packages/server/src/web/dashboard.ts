/**
 * The dashboard: sign-up, sign-in and sign-out, and the signed-in pages under `/dashboard`
 * (tunnels, billing, API tokens, webhooks). Server-rendered HTML forms, each protected by the
 * session's CSRF token; every read and change is scoped to the signed-in account.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isPlanId, type BillingCycle } from '@burrow/protocol'
import type { RateLimiter } from '../app/rate-limiter.js'
import { newFormToken } from './form-token.js'
import { billingView, tunnelView, tunnelViews } from './account-views.js'
import { landingPage, signInPage, signUpPage } from './auth-pages.js'
import { billingPage } from './billing-page.js'
import { parseCookies, serializeCookie } from './cookies.js'
import { html } from './html.js'
import { HttpError } from './http-error.js'
import { page, type Notice, type Viewer } from './layout.js'
import { pricingPage } from './pricing-page.js'
import { readForm } from './request-body.js'
import { redirect, sendHtml } from './responses.js'
import {
  checkCsrf,
  checkOrigin,
  FORM_COOKIE,
  identify,
  sameSecret,
  SESSION_COOKIE,
  type Caller,
} from './session-auth.js'
import { toHttpError } from './store-error-status.js'
import { keyOncePage, tunnelPage, tunnelsPage } from './tunnels-page.js'
import { tokensPage } from './tokens-page.js'
import type { AccountView, WebServices } from './web-services.js'
import { webhookPage, webhooksPage } from './webhooks-page.js'

/** Options of `new Dashboard`. */
export interface DashboardOptions {
  readonly services: WebServices
  /** The tunnel zone, shown in URL examples. */
  readonly zone: string
  /** Whether the service host is reached over https (Secure cookies, HSTS). */
  readonly https: boolean
  /** Limits sign-in and sign-up attempts per client address and per email. */
  readonly signInLimiter: RateLimiter
  readonly now?: () => Date
}

/** Seconds a session cookie lives (the server-side session expires on its own terms too). */
const SESSION_COOKIE_SECS = 30 * 24 * 3600

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
  checkout: {
    kind: 'info',
    text: 'Payment received. Your new plan applies as soon as the payment provider confirms it (usually within seconds).',
  },
  revoked: { kind: 'info', text: 'Token revoked.' },
  endpoint_deleted: { kind: 'info', text: 'Endpoint deleted.' },
  endpoint_enabled: { kind: 'info', text: 'Endpoint enabled again.' },
}

type Handler = (ctx: RequestContext) => Promise<void>

interface RequestContext {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly caller: Caller & { via: 'session' }
  readonly account: AccountView
  readonly viewer: Viewer
  readonly params: readonly string[]
  readonly query: URLSearchParams
}

/** Serves the dashboard and its public pages. */
export class Dashboard {
  readonly #opts: DashboardOptions
  readonly #svc: WebServices
  readonly #now: () => Date
  readonly #routes: readonly { method: string; pattern: RegExp; handler: Handler }[]

  constructor(opts: DashboardOptions) {
    this.#opts = opts
    this.#svc = opts.services
    this.#now = opts.now ?? (() => new Date())
    const r = (method: string, pattern: RegExp, handler: Handler) => ({ method, pattern, handler })
    this.#routes = [
      r('GET', /^\/dashboard$/, (c) => this.#tunnels(c)),
      r('POST', /^\/dashboard\/tunnels$/, (c) => this.#createTunnel(c)),
      r('POST', /^\/dashboard\/tunnels\/serving$/, (c) => this.#chooseServing(c)),
      r('GET', /^\/dashboard\/tunnels\/([\w-]+)$/, (c) => this.#tunnel(c)),
      r('POST', /^\/dashboard\/tunnels\/([\w-]+)\/rename$/, (c) => this.#rename(c)),
      r('POST', /^\/dashboard\/tunnels\/([\w-]+)\/rotate-key$/, (c) => this.#rotate(c)),
      r('POST', /^\/dashboard\/tunnels\/([\w-]+)\/delete$/, (c) => this.#delete(c)),
      r('GET', /^\/dashboard\/billing$/, (c) => this.#billing(c)),
      r('POST', /^\/dashboard\/billing\/checkout$/, (c) => this.#checkout(c)),
      r('POST', /^\/dashboard\/billing\/cancel$/, (c) => this.#cancel(c)),
      r('POST', /^\/dashboard\/billing\/cycle$/, (c) => this.#cycle(c)),
      r('GET', /^\/dashboard\/tokens$/, (c) => this.#tokens(c)),
      r('POST', /^\/dashboard\/tokens$/, (c) => this.#createToken(c)),
      r('POST', /^\/dashboard\/tokens\/([\w-]+)\/revoke$/, (c) => this.#revokeToken(c)),
      r('GET', /^\/dashboard\/webhooks$/, (c) => this.#webhooks(c)),
      r('POST', /^\/dashboard\/webhooks$/, (c) => this.#createWebhook(c)),
      r('GET', /^\/dashboard\/webhooks\/([\w-]+)$/, (c) => this.#webhook(c)),
      r('POST', /^\/dashboard\/webhooks\/([\w-]+)\/enable$/, (c) => this.#enableWebhook(c)),
      r('POST', /^\/dashboard\/webhooks\/([\w-]+)\/delete$/, (c) => this.#deleteWebhook(c)),
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
        const caller = await this.#browserCaller(req)
        const viewer = caller ? await this.#viewer(caller) : null
        this.#html(res, 200, pricingPage(viewer?.viewer ?? null))
        return true
      }
      if (path === '/signup' || path === '/signin') {
        if (method === 'GET') await this.#authForm(req, res, path)
        else if (method === 'POST')
          await (path === '/signup' ? this.#signUp(req, res) : this.#signIn(req, res))
        else throw new HttpError(405, 'method_not_allowed', `${path} accepts GET and POST`)
        return true
      }
      if (path === '/signout' && method === 'POST') {
        await this.#signOut(req, res)
        return true
      }
      if (path === '/' && method === 'GET' && accepts(req, 'text/html')) {
        const caller = await this.#browserCaller(req)
        if (caller) redirect(res, '/dashboard', { status: 302 })
        else this.#html(res, 200, landingPage())
        return true
      }
      if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return false
      const route = this.#routes.find((r) => r.method === method && r.pattern.test(path))
      if (!route) throw new HttpError(404, 'not_found', `nothing is served at ${path}`)
      const caller = await this.#browserCaller(req)
      if (!caller) {
        redirect(res, '/signin', { status: method === 'GET' ? 302 : 303 })
        return true
      }
      const found = await this.#viewer(caller)
      if (!found) {
        redirect(res, '/signin', { status: 303 })
        return true
      }
      const params = (route.pattern.exec(path) ?? []).slice(1)
      await route.handler({
        req,
        res,
        caller,
        account: found.account,
        viewer: found.viewer,
        params,
        query,
      })
      return true
    } catch (err) {
      const e = toHttpError(err)
      this.#html(
        res,
        e.status,
        page(
          { title: 'Error', notices: [{ kind: 'error', text: e.message }] },
          html`<p><a href="/dashboard">Back to the dashboard</a></p>`,
        ),
      )
      return true
    }
  }

  async #browserCaller(req: IncomingMessage): Promise<(Caller & { via: 'session' }) | null> {
    const caller = await identify(req, {
      findSession: (t) => this.#svc.sessions.find(t),
      authenticateToken: () => Promise.resolve(undefined),
    }).catch(() => null)
    return caller?.via === 'session' ? caller : null
  }

  async #viewer(
    caller: Caller & { via: 'session' },
  ): Promise<{ account: AccountView; viewer: Viewer } | null> {
    const account = await this.#svc.accounts.get(caller.accountId)
    if (!account) return null
    return {
      account,
      viewer: { email: account.email, slug: account.slug, csrfToken: caller.csrfToken },
    }
  }

  #html(
    res: ServerResponse,
    status: number,
    body: ReturnType<typeof html>,
    cookies?: string[],
  ): void {
    sendHtml(res, status, body, {
      https: this.#opts.https,
      formActionOrigins: this.#svc.billing.checkoutOrigins,
      ...(cookies ? { cookies } : {}),
    })
  }

  #cookie(name: string, value: string, maxAgeSecs?: number): string {
    return serializeCookie(name, value, {
      secure: this.#opts.https,
      ...(maxAgeSecs !== undefined ? { maxAgeSecs } : {}),
    })
  }

  /** A state-changing form post: its fields, after the CSRF check. */
  async #form(c: RequestContext): Promise<URLSearchParams> {
    const form = await readForm(c.req)
    checkCsrf(c.req, c.caller, form.get('_csrf'))
    return form
  }

  // --- sign-up, sign-in, sign-out ---

  async #authForm(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (await this.#browserCaller(req)) {
      redirect(res, '/dashboard', { status: 302 })
      return
    }
    const token = newFormToken()
    const body = path === '/signup' ? signUpPage(token, this.#opts.zone) : signInPage(token)
    this.#html(res, 200, body, [this.#cookie(FORM_COOKIE, token)])
  }

  /** Check the pre-session CSRF token and the rate limit; returns the form. */
  async #authPost(req: IncomingMessage, form: URLSearchParams): Promise<string | null> {
    checkOrigin(req)
    const cookie = parseCookies(req.headers.cookie).get(FORM_COOKIE)
    const field = form.get('_csrf')
    if (!cookie || !field || !sameSecret(cookie, field)) {
      return 'The form expired; please try again.'
    }
    const email = (form.get('email') ?? '').trim().toLowerCase()
    const address = req.socket.remoteAddress ?? 'unknown'
    for (const key of [`ip:${address}`, `email:${email}`]) {
      const decision = this.#opts.signInLimiter.take(key)
      if (!decision.ok) return `Too many attempts; try again in ${decision.retryAfterSecs} seconds.`
    }
    return null
  }

  async #signUp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const values = { email: form.get('email') ?? '', slug: (form.get('slug') ?? '').trim() }
    const token = newFormToken()
    const again = (status: number, message: string) =>
      this.#html(
        res,
        status,
        signUpPage(token, this.#opts.zone, values, [{ kind: 'error', text: message }]),
        [this.#cookie(FORM_COOKIE, token)],
      )
    const refused = await this.#authPost(req, form)
    if (refused) return again(refused.startsWith('Too many') ? 429 : 403, refused)
    let account: AccountView
    try {
      account = await this.#svc.accounts.create({
        email: values.email,
        slug: values.slug,
        password: form.get('password') ?? '',
      })
    } catch (err) {
      const e = toHttpError(err)
      return again(e.status, e.message)
    }
    await this.#startSession(res, account.id, '/dashboard')
  }

  async #signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req)
    const values = { email: form.get('email') ?? '' }
    const token = newFormToken()
    const again = (status: number, message: string) =>
      this.#html(res, status, signInPage(token, values, [{ kind: 'error', text: message }]), [
        this.#cookie(FORM_COOKIE, token),
      ])
    const refused = await this.#authPost(req, form)
    if (refused) return again(refused.startsWith('Too many') ? 429 : 403, refused)
    const account = await this.#svc.accounts.verifyLogin(values.email, form.get('password') ?? '')
    if (!account) return again(401, 'Wrong email or password.')
    await this.#startSession(res, account.id, '/dashboard')
  }

  async #startSession(res: ServerResponse, accountId: string, to: string): Promise<void> {
    const session = await this.#svc.sessions.create(accountId)
    redirect(res, to, {
      cookies: [
        this.#cookie(SESSION_COOKIE, session.token, SESSION_COOKIE_SECS),
        this.#cookie(FORM_COOKIE, '', 0),
      ],
    })
  }

  async #signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const caller = await this.#browserCaller(req)
    if (caller) {
      const form = await readForm(req)
      checkCsrf(req, caller, form.get('_csrf'))
      await this.#svc.sessions.delete(caller.sessionToken)
    }
    redirect(res, '/signin', { cookies: [this.#cookie(SESSION_COOKIE, '', 0)] })
  }

  // --- tunnels ---

  #notices(c: RequestContext): Notice[] {
    const key = c.query.get('notice')
    const notice = key ? NOTICES[key] : undefined
    return notice ? [notice] : []
  }

  async #tunnels(c: RequestContext): Promise<void> {
    const tunnels = await tunnelViews(this.#svc, c.account)
    this.#html(
      c.res,
      200,
      tunnelsPage({ viewer: c.viewer, plan: c.account.plan, tunnels, notices: this.#notices(c) }),
    )
  }

  async #createTunnel(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    const name = (form.get('name') ?? '').trim()
    const subdomain = (form.get('subdomain') ?? '').trim().toLowerCase()
    try {
      const created = await this.#svc.tunnels.create(c.account.id, {
        ...(name ? { name } : {}),
        ...(subdomain ? { subdomain } : {}),
      })
      this.#html(
        c.res,
        201,
        keyOncePage(c.viewer, tunnelView(this.#svc, c.account, created.tunnel), created.key, false),
      )
    } catch (err) {
      const e = toHttpError(err)
      const tunnels = await tunnelViews(this.#svc, c.account)
      const text =
        e.status === 402
          ? html`${e.message} <a href="/dashboard/billing">Upgrade your plan</a>`
          : e.message
      this.#html(
        c.res,
        e.status,
        tunnelsPage({
          viewer: c.viewer,
          plan: c.account.plan,
          tunnels,
          notices: [{ kind: 'error', text }],
          form: { name, subdomain },
        }),
      )
    }
  }

  async #chooseServing(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    await this.#svc.tunnels.chooseServing(c.account.id, form.getAll('serving'))
    this.#svc.live.evictAccount(c.account.id)
    redirect(c.res, '/dashboard?notice=serving')
  }

  async #found(c: RequestContext) {
    const id = c.params[0] ?? ''
    const t = await this.#svc.tunnels.get(c.account.id, id)
    if (!t) throw new HttpError(404, 'not_found', 'No such tunnel in your account.')
    return t
  }

  async #tunnel(c: RequestContext): Promise<void> {
    const t = await this.#found(c)
    this.#html(
      c.res,
      200,
      tunnelPage(c.viewer, tunnelView(this.#svc, c.account, t), this.#notices(c)),
    )
  }

  async #rename(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    const t = await this.#found(c)
    const name = (form.get('name') ?? '').trim()
    await this.#svc.tunnels.rename(c.account.id, t.id, name === '' ? null : name)
    redirect(c.res, `/dashboard/tunnels/${t.id}?notice=renamed`)
  }

  async #rotate(c: RequestContext): Promise<void> {
    await this.#form(c)
    const t = await this.#found(c)
    const rotated = await this.#svc.tunnels.rotateKey(c.account.id, t.id)
    this.#svc.live.disconnect(t.id, 'the tunnel key was rotated')
    this.#html(
      c.res,
      200,
      keyOncePage(c.viewer, tunnelView(this.#svc, c.account, rotated.tunnel), rotated.key, true),
    )
  }

  async #delete(c: RequestContext): Promise<void> {
    await this.#form(c)
    const t = await this.#found(c)
    await this.#svc.tunnels.delete(c.account.id, t.id)
    this.#svc.live.disconnect(t.id, 'the tunnel was deleted')
    this.#svc.live.evictAccount(c.account.id)
    redirect(c.res, '/dashboard?notice=deleted')
  }

  // --- billing ---

  async #billing(c: RequestContext): Promise<void> {
    const view = await billingView(this.#svc, c.account, this.#now())
    this.#html(c.res, 200, billingPage(c.viewer, view, this.#notices(c)))
  }

  async #checkout(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    const plan = form.get('plan') ?? ''
    const cycle = parseCycle(form.get('cycle'))
    if (plan !== 'pro' && plan !== 'scale')
      throw new HttpError(400, 'invalid', 'Choose Pro or Scale.')
    if (c.account.plan !== 'free')
      throw new HttpError(
        409,
        'conflict',
        'You already have a paid plan; cancel it first or switch its billing cycle.',
      )
    const success = `${origin(c.req, this.#opts.https)}/dashboard/billing?notice=checkout`
    const url = await this.#svc.billing.checkoutUrl(
      { id: c.account.id, email: c.account.email },
      plan,
      cycle,
      success,
    )
    redirect(c.res, url)
  }

  async #cancel(c: RequestContext): Promise<void> {
    await this.#form(c)
    await this.#svc.billing.cancel(c.account.id)
    redirect(c.res, '/dashboard/billing?notice=cancelled')
  }

  async #cycle(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    await this.#svc.billing.switchCycle(c.account.id, parseCycle(form.get('cycle')))
    redirect(c.res, '/dashboard/billing?notice=cycle')
  }

  // --- API tokens ---

  async #tokens(c: RequestContext): Promise<void> {
    const tokens = await this.#svc.tokens.list(c.account.id)
    this.#html(c.res, 200, tokensPage(c.viewer, tokens, { notices: this.#notices(c) }))
  }

  async #createToken(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    try {
      const created = await this.#svc.tokens.create(c.account.id, (form.get('name') ?? '').trim())
      const tokens = await this.#svc.tokens.list(c.account.id)
      this.#html(
        c.res,
        201,
        tokensPage(c.viewer, tokens, {
          created: { name: created.token.name, secret: created.secret },
        }),
      )
    } catch (err) {
      const e = toHttpError(err)
      const tokens = await this.#svc.tokens.list(c.account.id)
      this.#html(
        c.res,
        e.status,
        tokensPage(c.viewer, tokens, { notices: [{ kind: 'error', text: e.message }] }),
      )
    }
  }

  async #revokeToken(c: RequestContext): Promise<void> {
    await this.#form(c)
    if (!(await this.#svc.tokens.revoke(c.account.id, c.params[0] ?? ''))) {
      throw new HttpError(404, 'not_found', 'No such token in your account.')
    }
    redirect(c.res, '/dashboard/tokens?notice=revoked')
  }

  // --- webhooks ---

  async #webhooks(c: RequestContext): Promise<void> {
    const endpoints = await this.#svc.webhooks.list(c.account.id)
    this.#html(c.res, 200, webhooksPage(c.viewer, endpoints, this.#notices(c)))
  }

  async #createWebhook(c: RequestContext): Promise<void> {
    const form = await this.#form(c)
    const url = (form.get('url') ?? '').trim()
    try {
      const created = await this.#svc.webhooks.create(c.account.id, { url })
      redirect(c.res, `/dashboard/webhooks/${created.id}`)
    } catch (err) {
      const e = toHttpError(err)
      const endpoints = await this.#svc.webhooks.list(c.account.id)
      this.#html(
        c.res,
        e.status,
        webhooksPage(c.viewer, endpoints, [{ kind: 'error', text: e.message }], { url }),
      )
    }
  }

  async #webhook(c: RequestContext): Promise<void> {
    const id = c.params[0] ?? ''
    const endpoint = await this.#svc.webhooks.get(c.account.id, id)
    if (!endpoint)
      throw new HttpError(404, 'not_found', 'No such webhook endpoint in your account.')
    const deliveries = await this.#svc.webhooks.deliveries(c.account.id, id)
    this.#html(c.res, 200, webhookPage(c.viewer, endpoint, deliveries, this.#notices(c)))
  }

  async #enableWebhook(c: RequestContext): Promise<void> {
    await this.#form(c)
    const id = c.params[0] ?? ''
    if (!(await this.#svc.webhooks.enable(c.account.id, id)))
      throw new HttpError(404, 'not_found', 'No such webhook endpoint in your account.')
    redirect(c.res, `/dashboard/webhooks/${id}?notice=endpoint_enabled`)
  }

  async #deleteWebhook(c: RequestContext): Promise<void> {
    await this.#form(c)
    if (!(await this.#svc.webhooks.delete(c.account.id, c.params[0] ?? ''))) {
      throw new HttpError(404, 'not_found', 'No such webhook endpoint in your account.')
    }
    redirect(c.res, '/dashboard/webhooks?notice=endpoint_deleted')
  }
}

/** `monthly` or `annual` from a form or JSON field. */
export function parseCycle(value: unknown): BillingCycle {
  if (value === 'monthly' || value === 'annual') return value
  throw new HttpError(400, 'invalid', 'billing cycle must be "monthly" or "annual"')
}

/** The plan id from a form or JSON field, when it is a paid plan. */
export function parsePaidPlan(value: unknown): 'pro' | 'scale' {
  if (typeof value === 'string' && isPlanId(value) && value !== 'free') return value
  throw new HttpError(400, 'invalid', 'plan must be "pro" or "scale"')
}

/** The origin the browser used to reach us, for absolute return URLs. */
export function origin(req: IncomingMessage, https: boolean): string {
  return `${https ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`
}

function accepts(req: IncomingMessage, type: string): boolean {
  return (req.headers.accept ?? '').includes(type)
}
