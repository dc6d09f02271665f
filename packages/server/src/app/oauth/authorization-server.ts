/**
 * burrowd as the OAuth 2.1 authorization server of its own tunnels, on the service host:
 * metadata (`/.well-known/oauth-authorization-server`, RFC 8414), registration
 * (`/oauth/register`, RFC 7591), the authorization endpoint with the dashboard's sign-in and a
 * consent page (`/oauth/authorize`), the token endpoint with PKCE and refresh-token rotation
 * (`/oauth/token`) and revocation (`/oauth/revoke`, RFC 7009) (`token-endpoint.ts`), whose
 * failed requests are bounded per client address (`TokenFailureLimit`), as authorization requests
 * are (`AuthorizeLimit`). Only the account that owns a tunnel can approve a client for it, and
 * only while the tunnel is in `oauth` mode.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ClientAddresses, networkOfRateKey } from '../../http/client-addresses.js'
import { HttpError } from '../../http/http-error.js'
import type { RateLimiter } from '../../http/rate-limiter.js'
import { localRateLimits, type RateLimits } from '../../http/rate-limits.js'
import { readForm, readJsonObject } from '../../http/request-body.js'
import { redirect, sendHtml } from '../../http/responses.js'
import { actingCredential, checkCsrf, cookieNames, identify } from '../session-auth.js'
import { StoreError } from '../../store/store-error.js'
import { actAs } from '../../store/acting-credential.js'
import type { Viewer } from '../dashboard/layout.js'
import type { WebServices } from '../web-services.js'
import type { Mount } from '../app.js'
import { hashKey } from '../../store/hash-key.js'
import type { OauthGrantStore } from '../../store/oauth-grant-store.js'
import type { TunnelAccessStore } from '../../store/tunnel-access-store.js'
import type { TunnelWithAccount } from '../../store/store.js'
import type { AccessTokens } from '../../access/oauth/access-tokens.js'
import {
  AUTHORIZE_PARAMS,
  checkAuthorizeRequest,
  withParams,
} from '../../access/oauth/authorize-request.js'
import {
  ClientRegistry,
  MAX_CLIENT_METADATA_BYTES,
  metadataBytes,
} from '../../access/oauth/client-registry.js'
import { consentPage, refusedPage } from './consent-page.js'
import { OauthError } from '../../access/oauth/oauth-error.js'
import { formActionSource } from '../../access/oauth/redirect-uri.js'
import { oauthErrorJson, oauthJson, preflight } from './oauth-responses.js'
import { newAuthorizationCode } from './authorization-code.js'
import { AuthorizeLimit } from '../../access/oauth/authorize-limit.js'
import { RefreshLimit } from '../../access/oauth/refresh-limit.js'
import { TokenFailureLimit } from '../../access/oauth/token-failure-limit.js'
import { TokenEndpoint } from './token-endpoint.js'
import { authorizationMetadata } from './authorization-metadata.js'

/** Seconds a code may wait to be redeemed. */
const CODE_TTL_SECS = 60
/** Registrations one address may make per minute. */
const REGISTRATIONS_PER_MINUTE = 20

/** What the authorization server is built on. */
export interface AuthorizationServerOptions {
  readonly issuer: string
  readonly https: boolean
  readonly services: WebServices
  readonly registry: ClientRegistry
  readonly grants: OauthGrantStore
  readonly tokens: AccessTokens
  readonly settings: Pick<TunnelAccessStore, 'get'>
  /** The tunnel label of a resource URL, when it is exactly one of ours (`<origin>/mcp`). */
  readonly labelOf: (resource: string) => Promise<string | null>
  readonly tunnelByLabel: (label: string) => Promise<TunnelWithAccount | null>
  readonly addresses?: ClientAddresses
  /** Where the limits on registrations, authorizations, refreshes and failures are kept. */
  readonly limits?: RateLimits
  /** Told when this server revokes a grant of `tunnelId`, so every node ends what it opened. */
  readonly onGrantRevoked?: (tunnelId: string) => Promise<void>
}

const PATHS = new Set([
  '/.well-known/oauth-authorization-server',
  '/oauth/register',
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/revoke',
])

/** The authorization server, mounted on the service host. */
export class AuthorizationServer implements Mount {
  readonly #o: AuthorizationServerOptions
  readonly #registrations: RateLimiter
  readonly #tokens: TokenEndpoint
  readonly #failures: TokenFailureLimit
  readonly #authorizations: AuthorizeLimit
  readonly #addresses: ClientAddresses

  constructor(opts: AuthorizationServerOptions) {
    this.#o = opts
    this.#tokens = new TokenEndpoint({
      grants: opts.grants,
      tokens: opts.tokens,
      refreshes: new RefreshLimit(undefined, opts.limits),
      ...(opts.onGrantRevoked ? { onGrantRevoked: opts.onGrantRevoked } : {}),
    })
    this.#failures = new TokenFailureLimit(opts.limits)
    this.#authorizations = new AuthorizeLimit(opts.limits)
    this.#registrations = (opts.limits ?? localRateLimits).limiter('oauth.registrations', {
      capacity: REGISTRATIONS_PER_MINUTE,
      perMs: 60_000,
      overflowGroup: networkOfRateKey,
    })
    this.#addresses = opts.addresses ?? new ClientAddresses()
  }

  readonly matches = (url: string): boolean => PATHS.has(url.split('?', 1)[0] ?? '')

  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?', 1)[0]
    const method = req.method ?? 'GET'
    try {
      if (method === 'OPTIONS' && path !== '/oauth/authorize') return preflight(res)
      if (path === '/.well-known/oauth-authorization-server' && method === 'GET')
        return this.#metadata(res)
      if (path === '/oauth/register' && method === 'POST') return await this.#register(req, res)
      if (path === '/oauth/authorize' && (method === 'GET' || method === 'POST'))
        return await this.#authorize(req, res, method)
      if (path === '/oauth/token' && method === 'POST')
        return await this.#counted(req, () => this.#tokens.token(req, res))
      if (path === '/oauth/revoke' && method === 'POST')
        return await this.#counted(req, () => this.#tokens.revoke(req, res))
      throw new OauthError('invalid_request', `${path} does not accept ${method}`, 405)
    } catch (err) {
      if (err instanceof OauthError) return oauthErrorJson(res, err)
      if (err instanceof HttpError) {
        return oauthJson(res, err.status, {
          error: 'invalid_request',
          error_description: err.message,
        })
      }
      throw err
    }
  }

  #metadata(res: ServerResponse): void {
    oauthJson(res, 200, authorizationMetadata(this.#o.issuer))
  }

  async #register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const allowed = this.#registrations.take(this.#addresses.rateKey(req))
    if (!allowed.ok) {
      throw new OauthError(
        'invalid_request',
        `too many registrations; retry in ${allowed.retryAfterSecs} s`,
        429,
        allowed.retryAfterSecs,
      )
    }
    const body = await readJsonObject(req)
    if (metadataBytes(body) > MAX_CLIENT_METADATA_BYTES) {
      throw new OauthError(
        'invalid_client_metadata',
        `client metadata is larger than ${MAX_CLIENT_METADATA_BYTES} bytes, or nested too deep`,
      )
    }
    const client = await this.#o.registry.register(body)
    oauthJson(res, 201, {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(client.fetchedAt.getTime() / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })
  }

  async #authorize(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    // Before anything is read or looked up (a page: the authorization endpoint is a browser's).
    const address = this.#addresses.rateKey(req)
    const wait = this.#authorizations.take(address)
    if (wait !== null) {
      res.setHeader('retry-after', String(wait))
      const message = `Too many authorization requests from this address; retry in ${wait} s.`
      return sendHtml(res, 429, refusedPage(message, null), { https: this.#o.https })
    }
    const params =
      method === 'GET'
        ? new URL(req.url ?? '/', 'http://x.invalid').searchParams
        : await readForm(req)
    const caller = await identify(
      req,
      {
        findSession: (t) => this.#o.services.sessions.find(t),
        authenticateToken: () => Promise.resolve(undefined),
      },
      cookieNames(this.#o.https).session,
    ).catch(() => null)
    const account =
      caller?.via === 'session' ? await this.#o.services.accounts.get(caller.accountId) : undefined
    const viewer: Viewer | null =
      caller?.via === 'session' && account
        ? { email: account.email, slug: account.slug, csrfToken: caller.csrfToken }
        : null
    const checked = await checkAuthorizeRequest(params, this.#o.registry, this.#o.labelOf, address)
    if ('kind' in checked) {
      return sendHtml(res, 400, refusedPage(checked.error.message, viewer), {
        https: this.#o.https,
      })
    }
    if (!viewer || !account || caller?.via !== 'session') {
      if (method === 'POST') throw new HttpError(403, 'csrf_failed', 'sign in again')
      const query = new URLSearchParams()
      for (const name of AUTHORIZE_PARAMS) {
        const v = params.get(name)
        if (v !== null) query.set(name, v)
      }
      const next = `/oauth/authorize?${query.toString()}`
      return redirect(res, `/signin?next=${encodeURIComponent(next)}`, { status: 302 })
    }
    const tunnel = await this.#o.tunnelByLabel(checked.label)
    if (!tunnel || tunnel.accountId !== account.id) {
      const message = `The tunnel ${checked.resource} is not one of ${account.email}'s tunnels. Sign in with the account that owns it.`
      return sendHtml(res, 403, refusedPage(message, viewer), { https: this.#o.https })
    }
    if ((await this.#o.settings.get(tunnel.id)).mode !== 'oauth') {
      const message = `The tunnel ${checked.resource} does not let agents sign in: set its access to OAuth on its page first.`
      return sendHtml(res, 403, refusedPage(message, viewer), { https: this.#o.https })
    }
    if (method === 'GET') {
      // The tunnel's owner, signed in, reading the consent page: not what the limit is for.
      this.#authorizations.fromOwner(address)
      const shown = AUTHORIZE_PARAMS.flatMap((n) => {
        const v = params.get(n)
        return v === null ? [] : [[n, v] as const]
      })
      return sendHtml(
        res,
        200,
        consentPage({
          viewer,
          clientName: checked.client.name,
          clientId: checked.client.clientId,
          tunnelName: tunnel.name ?? tunnel.subdomain,
          tunnelUrl: checked.resource,
          redirectUri: checked.redirectUri,
          params: shown,
        }),
        { https: this.#o.https, formActionOrigins: [formActionSource(checked.redirectUri)] },
      )
    }
    checkCsrf(req, caller, params.get('_csrf'))
    // The owner's own answer: not counted either.
    this.#authorizations.fromOwner(address)
    if (params.get('decision') !== 'approve') {
      const denied = new OauthError('access_denied', 'the account owner denied the request')
      return redirect(res, this.#back(checked.redirectUri, denied, checked.state))
    }
    const code = newAuthorizationCode()
    const approve = () =>
      this.#o.grants.approve({
        tunnelId: tunnel.id,
        accountId: account.id,
        clientId: checked.client.clientId,
        clientName: checked.client.name,
        approvedBy: account.email,
        resource: checked.resource,
        codeHash: hashKey(code),
        redirectUri: checked.redirectUri,
        codeChallenge: checked.codeChallenge,
        codeExpiresAt: new Date(Date.now() + CODE_TTL_SECS * 1000),
      })
    // The session is checked again as the grant is written (it may have been signed out since).
    try {
      await actAs(actingCredential(caller), approve)
    } catch (err) {
      if (!(err instanceof StoreError) || err.code !== 'conflict') throw err
      return sendHtml(res, 409, refusedPage(err.message, viewer), { https: this.#o.https })
    }
    redirect(
      res,
      withParams(checked.redirectUri, { code, state: checked.state, iss: this.#o.issuer }),
    )
  }

  #back(redirectUri: string, error: OauthError, state: string | null): string {
    return withParams(redirectUri, {
      error: error.code,
      error_description: error.message,
      state,
      iss: this.#o.issuer,
    })
  }

  /**
   * Run `work` (true: it did not fail) within the client address's budget of failed requests
   * (`TokenFailureLimit`): spent before, given back unless the client's request failed.
   */
  async #counted(req: IncomingMessage, work: () => Promise<boolean>): Promise<void> {
    const address = this.#addresses.rateKey(req)
    this.#failures.begin(address)
    let failed = true
    try {
      failed = !(await work())
    } catch (err) {
      failed = err instanceof OauthError || (err instanceof HttpError && err.status < 500)
      throw err
    } finally {
      if (!failed) this.#failures.succeeded(address)
    }
  }
}
