/**
 * The first check at the edge: may this caller reach this tunnel at all? The IP allowlist, then
 * the access mode: `public` admits anyone, `token` wants `Authorization: Bearer atk_…` made for
 * this tunnel, `oauth` a bearer access token burrowd issued for this tunnel's resource. A refusal
 * is the envelope (`unauthorized` 401 with `WWW-Authenticate`, `access_denied` 403) and says
 * nothing about whether the tunnel is online. A host that names no tunnel is answered exactly as
 * an `oauth` tunnel answers a caller without a token, so names cannot be probed.
 */
import type { PolicyCode } from '@burrow/protocol'
import type { AgentToken, AgentTokenStore } from '../store/agent-token-store.js'
import type { TunnelAccessStore } from '../store/tunnel-access-store.js'
import { PUBLIC_CALLER, type AgentIdentity } from './agent-identity.js'
import type { TunnelAccess } from '../store/tunnel-access-row.js'
import { allowlistAdmits } from './tunnel-access.js'
import { RefusedAgentTokens } from './refused-agent-tokens.js'
import { MCP_SCOPE } from './oauth/mcp-scope.js'

/** Checks OAuth access tokens (the authorization server's side); absent until OAuth is on. */
export interface AccessTokenVerifier {
  /** The grant a token authenticates for `resource` and tunnel `tunnelId`, or null. */
  verify(token: string, tunnelId: string, resource: string): Promise<AgentIdentity | null>
}

/** What the gate decided. */
export type GateDecision =
  | { readonly ok: true; readonly agent: AgentIdentity; readonly dropCredentials: boolean }
  | {
      readonly ok: false
      readonly code: PolicyCode
      readonly message: string
      readonly reason: string
      readonly headers: Record<string, string>
    }

/** Options of `new AccessGate`. */
export interface AccessGateOptions {
  readonly settings: Pick<TunnelAccessStore, 'get'>
  readonly agentTokens: Pick<AgentTokenStore, 'authenticate'>
  readonly oauth?: AccessTokenVerifier | null
  /** The authorization server's issuer URL: the service host (`<scheme>://<zone>[:port]`). */
  readonly issuer: string
  /** `<scheme>://<label>.<zone>[:port]` of a tunnel host label. */
  readonly publicOrigin: (label: string) => string
  /** How long settings are cached per tunnel, in ms (default 5 000). */
  readonly cacheMs?: number
  /** Agent tokens refused on this node (default: a `RefusedAgentTokens` of the default bounds). */
  readonly refusedTokens?: RefusedAgentTokens
}

const MAX_CACHED = 10_000

/** Decides who may call tunnels. */
export class AccessGate {
  readonly #opts: AccessGateOptions
  readonly #cache = new Map<string, { access: TunnelAccess; expires: number }>()
  /** Bumped by `invalidate`: a read begun before it does not fill the cache with what it read. */
  #generation = 0
  readonly #refused: RefusedAgentTokens
  /** Agent-token lookups under way, by tunnel and secret: the same token at once is read once. */
  readonly #lookups = new Map<string, Promise<AgentToken | undefined>>()

  constructor(opts: AccessGateOptions) {
    this.#opts = opts
    this.#refused = opts.refusedTokens ?? new RefusedAgentTokens()
  }

  /** The settings of tunnel `tunnelId`, cached briefly: the edge asks on every request. */
  async settings(tunnelId: string): Promise<TunnelAccess> {
    const now = Date.now()
    const hit = this.#cache.get(tunnelId)
    if (hit && hit.expires > now) return hit.access
    const generation = this.#generation
    const access = await this.#opts.settings.get(tunnelId)
    if (generation !== this.#generation) return access
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear()
    this.#cache.set(tunnelId, { access, expires: now + (this.#opts.cacheMs ?? 5_000) })
    return access
  }

  /** Changes so far (any tunnel's): a check begun before a change may have read the old settings. */
  get generation(): number {
    return this.#generation
  }

  /** Forget the cached settings of `tunnelId` (after its owner changed them here). */
  invalidate(tunnelId: string): void {
    this.#generation++
    this.#cache.delete(tunnelId)
  }

  /** The authorization server tunnels send agents to. */
  get issuer(): string {
    return this.#opts.issuer
  }

  /** `<scheme>://<label>.<zone>[:port]`: the origin of tunnel host `label`. */
  originOf(label: string): string {
    return this.#opts.publicOrigin(label)
  }

  /** The protected-resource metadata URL of a tunnel reached at `origin` (path-suffixed form). */
  metadataUrl(origin: string): string {
    return `${origin}/.well-known/oauth-protected-resource/mcp`
  }

  /**
   * The resource (RFC 8707) tokens for a tunnel reached at `origin` are bound to: its `/mcp` URL.
   * A tunnel's own host and each of its custom domains are resources of their own.
   */
  resource(origin: string): string {
    return `${origin}/mcp`
  }

  /**
   * Whether the caller at `address` presenting `authorization` may reach `tunnelId` (null: the
   * host names no tunnel) at `origin` (its own host's, or a custom domain's).
   */
  async check(
    tunnelId: string | null,
    origin: string,
    address: string,
    authorization: string | undefined,
  ): Promise<GateDecision> {
    if (tunnelId === null) return this.#challenge(origin, bearer(authorization) !== null)
    const access = await this.settings(tunnelId)
    if (!allowlistAdmits(access.allowIps, address)) {
      return refusal(
        'access_denied',
        'address not allowed',
        `this tunnel admits only listed IP addresses, and ${address} is not one of them`,
        {},
      )
    }
    if (access.mode === 'public') return { ok: true, agent: PUBLIC_CALLER, dropCredentials: false }
    const token = bearer(authorization)
    if (access.mode === 'token') {
      const found = token === null ? undefined : await this.#agentToken(tunnelId, token)
      if (found === undefined) {
        return refusal(
          'unauthorized',
          'agent token required',
          token === null
            ? 'this tunnel needs "Authorization: Bearer atk_…" with an agent token its owner made'
            : 'the agent token is not valid for this tunnel; ask its owner for one',
          {
            'www-authenticate':
              token === null
                ? 'Bearer realm="burrow"'
                : 'Bearer realm="burrow", error="invalid_token", error_description="unknown or revoked agent token"',
          },
        )
      }
      return {
        ok: true,
        agent: { kind: 'token', id: found.id, name: found.name },
        dropCredentials: true,
      }
    }
    const verifier = this.#opts.oauth ?? null
    const agent =
      token === null || verifier === null
        ? null
        : await verifier.verify(token, tunnelId, this.resource(origin))
    if (agent === null) return this.#challenge(origin, token !== null)
    return { ok: true, agent, dropCredentials: true }
  }

  /**
   * The agent token `secret` is for `tunnelId`: a token this node refused before is refused
   * without a database read (refusals never go stale, `refused-agent-tokens.ts`), and so is one
   * presented again while its lookup is under way and ends refused. A token found valid is never
   * reused: each request reads it itself, so a request made after a revoke is refused even when
   * it came while a lookup begun before the revoke was under way.
   */
  async #agentToken(tunnelId: string, secret: string): Promise<AgentToken | undefined> {
    if (this.#refused.has(tunnelId, secret)) return undefined
    const key = `${tunnelId}\n${secret}`
    const running = this.#lookups.get(key)
    if (running !== undefined && (await running) === undefined) return undefined
    if (running !== undefined) return this.#opts.agentTokens.authenticate(tunnelId, secret)
    const lookup = this.#opts.agentTokens.authenticate(tunnelId, secret).then((found) => {
      if (found === undefined) this.#refused.add(tunnelId, secret)
      return found
    })
    this.#lookups.set(key, lookup)
    try {
      return await lookup
    } finally {
      this.#lookups.delete(key)
    }
  }

  /**
   * The 401 that sends an MCP client to OAuth discovery, naming the scope its tokens need (the
   * MCP authorization spec, 2025-11-25: servers SHOULD, and clients ask for what it names).
   */
  #challenge(origin: string, presented: boolean): GateDecision {
    const params = [`resource_metadata="${this.metadataUrl(origin)}"`, `scope="${MCP_SCOPE}"`]
    if (presented) {
      params.push(
        'error="invalid_token"',
        'error_description="the access token is not valid for this tunnel"',
      )
    }
    return refusal(
      'unauthorized',
      'sign-in required',
      presented
        ? 'the access token is not valid for this tunnel (wrong tunnel, expired, revoked or altered); sign in again'
        : 'this tunnel needs an OAuth access token; MCP clients find how to sign in from the WWW-Authenticate header',
      { 'www-authenticate': `Bearer ${params.join(', ')}` },
    )
  }
}

/** The bearer token of an Authorization header, or null. */
function bearer(header: string | undefined): string | null {
  if (header === undefined) return null
  const match = /^Bearer +([\x21-\x7e]{1,4096})\s*$/i.exec(header)
  return match ? match[1]! : null
}

function refusal(
  code: PolicyCode,
  message: string,
  reason: string,
  headers: Record<string, string>,
): GateDecision {
  // Browser-based MCP clients must be able to read the challenge to start OAuth.
  const expose = {
    'access-control-expose-headers': 'x-burrow-error, retry-after, www-authenticate',
  }
  return { ok: false, code, message, reason, headers: { ...headers, ...expose } }
}
