/**
 * The JSON API under `/api/*` (documented in docs/api.md). `GET /api/plans` is public; every
 * other route needs an API token (`Authorization: Bearer btk_…`) or a dashboard session (whose
 * state-changing calls must send the session's `x-csrf-token`). Every route checks that what it
 * reads or changes belongs to the caller's account.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { accessHeaders } from '@burrow/protocol'
import { billingView, tunnelView, tunnelViews, withAccessModes } from '../account-views.js'
import { parseCycle, parsePaidPlan } from '../billing-fields.js'
import { requestOrigin } from '../../http/request-origin.js'
import { HttpError } from '../../http/http-error.js'
import { readJsonObject } from '../../http/request-body.js'
import { sendApiError, sendApiJson } from '../../http/responses.js'
import { actingCredential, checkCsrf, cookieNames, identify } from '../session-auth.js'
import { actAs } from '../../store/acting-credential.js'
import { toHttpError } from '../store-error-status.js'
import type { WebServices } from '../web-services.js'
import { accountJson, billingJson, tokenJson, tunnelJson } from './api-json.js'
import type { ApiCall } from './api-call.js'
import { governanceApi } from './governance-api.js'
import { toolsApi } from './tools-api.js'
import { accessApi, accessFromBody } from './access-api.js'
import { DEFAULT_ACCESS } from '../../store/tunnel-access-row.js'
import { plansJson } from './plans-json.js'
import { domainsApi } from './domains-api.js'
import { withCustomUrl } from './domains-json.js'
import { planChangeApi } from './plan-change-api.js'
import { optionalString } from './optional-string.js'
import { webhooksApi } from './webhooks-api.js'

/** Options of `new Api`. */
export interface ApiOptions {
  readonly services: WebServices
  readonly https: boolean
  readonly now?: () => Date
}

type Call = ApiCall

type Handler = (c: Call) => Promise<void>

/** Serves `/api/*` routes other than the client-release and crash-report ones. */
export class Api {
  readonly #svc: WebServices
  readonly #https: boolean
  readonly #now: () => Date
  readonly #routes: readonly { method: string; pattern: RegExp; handler: Handler }[]

  constructor(opts: ApiOptions) {
    this.#svc = opts.services
    this.#https = opts.https
    this.#now = opts.now ?? (() => new Date())
    const r = (method: string, pattern: RegExp, handler: Handler) => ({ method, pattern, handler })
    const id = '([\\w-]+)'
    const gov = governanceApi(this.#svc, this.#now)
    const tools = toolsApi(this.#svc)
    const access = accessApi(this.#svc)
    const tool = '([^/]+)'
    const domains = domainsApi(this.#svc.domains)
    const query = (c: Call) => new URL(c.req.url ?? '/', 'http://api.invalid').searchParams
    const webhooks = webhooksApi(this.#svc.webhooks)
    const planChange = planChangeApi(this.#svc, (c) => this.#billing(c))
    this.#routes = [
      r('GET', /^\/api\/account$/, (c) => this.#ok(c, accountJson(c.account))),
      r('GET', /^\/api\/billing$/, (c) => this.#billing(c)),
      r('POST', /^\/api\/billing\/checkout$/, (c) => this.#checkout(c)),
      r('POST', /^\/api\/billing\/cancel$/, (c) => this.#cancel(c)),
      r('POST', /^\/api\/billing\/cycle$/, (c) => this.#cycle(c)),
      r('GET', /^\/api\/billing\/plan-change$/, (c) => planChange.preview(c, query(c))),
      r('POST', /^\/api\/billing\/plan$/, (c) => planChange.change(c)),
      r('GET', /^\/api\/tunnels$/, (c) => this.#listTunnels(c)),
      r('POST', /^\/api\/tunnels$/, (c) => this.#createTunnel(c)),
      r('PUT', /^\/api\/tunnels\/serving$/, (c) => this.#chooseServing(c)),
      r('GET', new RegExp(`^/api/tunnels/${id}$`), (c) => this.#getTunnel(c)),
      r('PATCH', new RegExp(`^/api/tunnels/${id}$`), (c) => this.#renameTunnel(c)),
      r('DELETE', new RegExp(`^/api/tunnels/${id}$`), (c) => this.#deleteTunnel(c)),
      r('POST', new RegExp(`^/api/tunnels/${id}/rotate-key$`), (c) => this.#rotateKey(c)),
      r('GET', new RegExp(`^/api/tunnels/${id}/policy$`), async (c) =>
        gov.getPolicy(c, (await this.#tunnel(c)).id),
      ),
      r('PUT', new RegExp(`^/api/tunnels/${id}/policy$`), async (c) =>
        gov.putPolicy(c, (await this.#tunnel(c)).id),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/calls$`), async (c) =>
        gov.listCalls(c, (await this.#tunnel(c)).id, query(c)),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/calls/${id}$`), async (c) =>
        gov.getCall(c, (await this.#tunnel(c)).id, c.params[1] ?? ''),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/metrics$`), async (c) =>
        gov.metrics(c, (await this.#tunnel(c)).id, query(c)),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/tools$`), async (c) =>
        tools.list(c, (await this.#tunnel(c)).id),
      ),
      r('POST', new RegExp(`^/api/tunnels/${id}/tools/${tool}/approve$`), async (c) =>
        tools.decide(c, (await this.#tunnel(c)).id, c.params[1] ?? '', 'approved'),
      ),
      r('POST', new RegExp(`^/api/tunnels/${id}/tools/${tool}/reject$`), async (c) =>
        tools.decide(c, (await this.#tunnel(c)).id, c.params[1] ?? '', 'rejected'),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/domains$`), async (c) =>
        domains.list(c, (await this.#tunnel(c)).id),
      ),
      r('POST', new RegExp(`^/api/tunnels/${id}/domains$`), async (c) =>
        domains.add(c, (await this.#tunnel(c)).id),
      ),
      r('POST', new RegExp(`^/api/tunnels/${id}/domains/${tool}/verify$`), async (c) =>
        domains.verify(c, (await this.#tunnel(c)).id, c.params[1] ?? ''),
      ),
      r('DELETE', new RegExp(`^/api/tunnels/${id}/domains/${tool}$`), async (c) =>
        domains.remove(c, (await this.#tunnel(c)).id, c.params[1] ?? ''),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/access$`), async (c) =>
        access.get(c, (await this.#tunnel(c)).id),
      ),
      r('PUT', new RegExp(`^/api/tunnels/${id}/access$`), async (c) =>
        access.put(c, (await this.#accessWrite(c)).id),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/agent-tokens$`), async (c) =>
        access.listTokens(c, (await this.#tunnel(c)).id),
      ),
      r('POST', new RegExp(`^/api/tunnels/${id}/agent-tokens$`), async (c) =>
        access.createToken(c, await this.#accessWrite(c)),
      ),
      r('DELETE', new RegExp(`^/api/tunnels/${id}/agent-tokens/${id}$`), async (c) =>
        access.revokeToken(c, (await this.#accessWrite(c)).id, c.params[1] ?? ''),
      ),
      r('GET', new RegExp(`^/api/tunnels/${id}/agents$`), async (c) =>
        access.listAgents(c, (await this.#tunnel(c)).id),
      ),
      r('DELETE', new RegExp(`^/api/tunnels/${id}/agents/${id}$`), async (c) =>
        access.revokeAgent(c, (await this.#accessWrite(c)).id, c.params[1] ?? ''),
      ),
      r('GET', /^\/api\/tokens$/, (c) => this.#listTokens(c)),
      r('POST', /^\/api\/tokens$/, (c) => this.#createToken(c)),
      r('DELETE', new RegExp(`^/api/tokens/${id}$`), (c) => this.#revokeToken(c)),
      r('GET', /^\/api\/webhooks$/, (c) => webhooks.list(c)),
      r('POST', /^\/api\/webhooks$/, (c) => webhooks.create(c)),
      r('GET', new RegExp(`^/api/webhooks/${id}$`), (c) => webhooks.get(c)),
      r('DELETE', new RegExp(`^/api/webhooks/${id}$`), (c) => webhooks.remove(c)),
      r('POST', new RegExp(`^/api/webhooks/${id}/enable$`), (c) => webhooks.enable(c)),
      r('POST', new RegExp(`^/api/webhooks/${id}/rotate-secret$`), (c) => webhooks.rotateSecret(c)),
      r('GET', new RegExp(`^/api/webhooks/${id}/deliveries$`), (c) => webhooks.deliveries(c)),
    ]
  }

  /** Handle `path` if it is an API route of ours; false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? 'GET'
    try {
      if (path === '/api/plans') {
        if (method !== 'GET' && method !== 'HEAD')
          throw new HttpError(405, 'method_not_allowed', '/api/plans accepts GET')
        sendApiJson(res, 200, plansJson(), { 'access-control-allow-origin': '*' })
        return true
      }
      const matching = this.#routes.filter((r) => r.pattern.test(path))
      if (matching.length === 0) return false
      const route = matching.find((r) => r.method === method)
      if (!route) {
        throw new HttpError(
          405,
          'method_not_allowed',
          `${path} accepts ${matching.map((r) => r.method).join(', ')}`,
        )
      }
      const caller = await identify(
        req,
        {
          findSession: (t) => this.#svc.sessions.find(t),
          authenticateToken: (s) => this.#svc.tokens.authenticate(s),
        },
        cookieNames(this.#https).session,
      )
      if (!caller) {
        throw new HttpError(
          401,
          'unauthorized',
          'sign in to the dashboard or send "Authorization: Bearer btk_…" with an API token',
        )
      }
      if (method !== 'GET' && method !== 'HEAD') {
        const header = req.headers['x-csrf-token']
        checkCsrf(req, caller, typeof header === 'string' ? header : null)
      }
      const account = await this.#svc.accounts.get(caller.accountId)
      if (!account) throw new HttpError(401, 'unauthorized', 'the account no longer exists')
      const params = (route.pattern.exec(path) ?? []).slice(1)
      await actAs(actingCredential(caller), () =>
        route.handler({ req, res, caller, account, params }),
      )
    } catch (err) {
      const e = toHttpError(err)
      const wait = e.details.retry_after_secs
      sendApiError(res, e, typeof wait === 'number' ? { 'retry-after': String(wait) } : {})
    }
    return true
  }

  #ok(c: Call, value: unknown, status = 200): Promise<void> {
    sendApiJson(c.res, status, value)
    return Promise.resolve()
  }

  async #billing(c: Call): Promise<void> {
    sendApiJson(c.res, 200, billingJson(await billingView(this.#svc, c.account, this.#now())))
  }

  async #checkout(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    const plan = parsePaidPlan(body.plan)
    const cycle = parseCycle(body.cycle ?? 'monthly')
    if (c.account.plan !== 'free') {
      throw new HttpError(
        409,
        'conflict',
        'the account already has a paid plan; cancel it or switch its billing cycle',
      )
    }
    const success =
      typeof body.success_url === 'string'
        ? body.success_url
        : `${requestOrigin(c.req, this.#https)}/dashboard/billing?notice=checkout`
    const url = await this.#svc.billing.checkoutUrl(
      { id: c.account.id, email: c.account.email },
      plan,
      cycle,
      success,
    )
    sendApiJson(c.res, 201, { checkout_url: url })
  }

  async #cancel(c: Call): Promise<void> {
    await this.#svc.billing.cancel(c.account.id)
    await this.#billing(c)
  }

  async #cycle(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    await this.#svc.billing.switchCycle(c.account.id, parseCycle(body.cycle))
    await this.#billing(c)
  }

  async #listTunnels(c: Call): Promise<void> {
    const urls = await this.#customUrls(c)
    const views = await withAccessModes(this.#svc, await tunnelViews(this.#svc, c.account))
    sendApiJson(c.res, 200, {
      tunnels: views.map((t) =>
        withCustomUrl(tunnelJson(t), urls.get(t.id), accessHeaders(t.accessMode)),
      ),
    })
  }

  /** The custom URL each tunnel of the caller's account serves now. */
  async #customUrls(c: Call): Promise<Map<string, string>> {
    return (await this.#svc.domains?.servingUrls(c.account.id)) ?? new Map<string, string>()
  }

  async #createTunnel(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    const name = optionalString(body, 'name')
    const subdomain = optionalString(body, 'subdomain')
    // Checked before anything is made; without them the tunnel is `oauth`, open to nobody else.
    const access = accessFromBody(body, DEFAULT_ACCESS)
    const created = await this.#svc.tunnels.create(c.account.id, {
      ...(name !== undefined ? { name } : {}),
      ...(subdomain !== undefined ? { subdomain } : {}),
    })
    const settings = await this.#svc.access.setSettings(created.tunnel.id, access)
    sendApiJson(c.res, 201, {
      tunnel: tunnelJson({
        ...tunnelView(this.#svc, c.account, created.tunnel),
        accessMode: settings.mode,
      }),
      key: created.key,
      access: { mode: settings.mode, allow_ips: settings.allowIps },
    })
  }

  async #chooseServing(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    const ids = body.tunnel_ids
    if (!Array.isArray(ids) || !ids.every((x): x is string => typeof x === 'string')) {
      throw new HttpError(400, 'invalid', '"tunnel_ids" must be an array of tunnel ids')
    }
    await this.#svc.tunnels.chooseServing(c.account.id, ids)
    this.#svc.live.evictAccount(c.account.id)
    await this.#listTunnels(c)
  }

  async #tunnel(c: Call) {
    const t = await this.#svc.tunnels.get(c.account.id, c.params[0] ?? '')
    if (!t) throw new HttpError(404, 'not_found', 'no such tunnel in this account')
    return t
  }

  /** The caller's tunnel, once a write to its access (or key) is allowed: 429 when too many. */
  async #accessWrite(c: Call) {
    const t = await this.#tunnel(c)
    this.#svc.accessWrites.spend(c.account.id, t.id)
    return t
  }

  async #getTunnel(c: Call): Promise<void> {
    const t = await this.#tunnel(c)
    const urls = await this.#customUrls(c)
    const [view] = await withAccessModes(this.#svc, [tunnelView(this.#svc, c.account, t)])
    sendApiJson(
      c.res,
      200,
      withCustomUrl(tunnelJson(view!), urls.get(t.id), accessHeaders(view!.accessMode)),
    )
  }

  async #renameTunnel(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    if (!('name' in body) || (body.name !== null && typeof body.name !== 'string')) {
      throw new HttpError(400, 'invalid', '"name" must be a string or null')
    }
    const t = await this.#tunnel(c)
    const name = typeof body.name === 'string' && body.name.trim() !== '' ? body.name : null
    await this.#svc.tunnels.rename(c.account.id, t.id, name)
    await this.#getTunnel(c)
  }

  async #deleteTunnel(c: Call): Promise<void> {
    const t = await this.#tunnel(c)
    await this.#svc.tunnels.delete(c.account.id, t.id)
    sendApiJson(c.res, 204)
  }

  async #rotateKey(c: Call): Promise<void> {
    const t = await this.#accessWrite(c)
    const rotated = await this.#svc.tunnels.rotateKey(c.account.id, t.id)
    const [view] = await withAccessModes(this.#svc, [
      tunnelView(this.#svc, c.account, rotated.tunnel),
    ])
    sendApiJson(c.res, 200, {
      tunnel: tunnelJson(view!),
      key: rotated.key,
    })
  }

  async #listTokens(c: Call): Promise<void> {
    sendApiJson(c.res, 200, { tokens: (await this.#svc.tokens.list(c.account.id)).map(tokenJson) })
  }

  async #createToken(c: Call): Promise<void> {
    const body = await readJsonObject(c.req)
    const name = optionalString(body, 'name') ?? ''
    const created = await this.#svc.tokens.create(c.account.id, name)
    sendApiJson(c.res, 201, { token: tokenJson(created.token), secret: created.secret })
  }

  async #revokeToken(c: Call): Promise<void> {
    if (!(await this.#svc.tokens.revoke(c.account.id, c.params[0] ?? ''))) {
      throw new HttpError(404, 'not_found', 'no such token in this account')
    }
    sendApiJson(c.res, 204)
  }
}
