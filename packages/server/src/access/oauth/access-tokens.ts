/**
 * Access tokens burrowd issues to OAuth clients: short-lived JWTs (HS256, signed with a secret
 * kept in the database's settings so every node shares it) whose audience is the tunnel's `/mcp`
 * URL (RFC 8707) and which name their grant. Verifying one checks the signature, the issuer, the
 * audience, the expiry, and that the grant still exists for that tunnel: revoking the grant
 * ends its tokens at once. Uses `jose` for the JWT itself.
 */
import { createHmac, randomUUID } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'
import type { AccessTokenVerifier } from '../access-gate.js'
import type { AgentIdentity } from '../agent-identity.js'
import type { OauthGrantStore } from '../../store/oauth-grant-store.js'
import { MCP_SCOPE } from './mcp-scope.js'

/** Seconds an access token lives. */
export const ACCESS_TOKEN_TTL_SECS = 3600

/** Signs and verifies access tokens. */
export class AccessTokens implements AccessTokenVerifier {
  readonly #key: Uint8Array
  readonly #issuer: string
  readonly #grants: OauthGrantStore
  readonly #now: () => Date

  constructor(opts: {
    readonly secret: string
    readonly issuer: string
    readonly grants: OauthGrantStore
    readonly now?: () => Date
  }) {
    this.#key = new TextEncoder().encode(opts.secret)
    this.#issuer = opts.issuer
    this.#grants = opts.grants
    this.#now = opts.now ?? (() => new Date())
  }

  /** A new access token for grant `grantId` on `resource`, for account `accountId`. */
  async issue(grant: { id: string; accountId: string; clientId: string; resource: string }) {
    const now = Math.floor(this.#now().getTime() / 1000)
    return new SignJWT({ gid: grant.id, client_id: grant.clientId, scope: MCP_SCOPE })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(this.#issuer)
      .setAudience(grant.resource)
      .setSubject(grant.accountId)
      .setIssuedAt(now)
      .setJti(randomUUID())
      .setExpirationTime(now + ACCESS_TOKEN_TTL_SECS)
      .sign(this.#key)
  }

  /**
   * The refresh token that replaces `refresh`: derived from it under the signing secret, so the
   * same token refreshed twice at once is replaced by the same one, and nobody without the
   * secret can tell what it will be.
   */
  refreshSuccessor(refresh: string): string {
    return 'brt_' + createHmac('sha256', this.#key).update(`refresh:${refresh}`).digest('base64url')
  }

  /** The grant id of a token signed here and not expired (audience unchecked), or null. */
  async grantOf(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: this.#issuer,
        algorithms: ['HS256'],
        currentDate: this.#now(),
      })
      return typeof payload.gid === 'string' ? payload.gid : null
    } catch {
      return null
    }
  }

  async verify(token: string, tunnelId: string, resource: string): Promise<AgentIdentity | null> {
    if (token.length > 4096) return null
    let grantId: string
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: this.#issuer,
        audience: resource,
        algorithms: ['HS256'],
        typ: 'at+jwt',
        currentDate: this.#now(),
      })
      if (typeof payload.gid !== 'string') return null
      grantId = payload.gid
    } catch {
      return null
    }
    const grant = await this.#grants.get(grantId)
    if (grant === undefined || grant.tunnelId !== tunnelId || grant.resource !== resource)
      return null
    // Written at most once a minute per grant: a busy agent must not write on every call.
    const last = grant.lastUsedAt?.getTime() ?? 0
    if (this.#now().getTime() - last >= 60_000) await this.#grants.touch(grant.id)
    return { kind: 'oauth', id: grant.id, name: grant.clientName }
  }
}
