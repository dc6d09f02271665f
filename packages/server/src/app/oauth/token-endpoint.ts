/**
 * The token endpoint (`/oauth/token`: the code with PKCE, refresh-token rotation with reuse
 * detection) and revocation (`/oauth/revoke`, RFC 7009) of the authorization server. A refresh
 * token or code not written as burrowd writes them is refused before any lookup. Each answers
 * whether the request succeeded, for the per-address budget of failures the server keeps.
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readForm } from '../../http/request-body.js'
import { hashKey } from '../../store/hash-key.js'
import type { OauthGrant, OauthGrantStore } from '../../store/oauth-grant-store.js'
import { ACCESS_TOKEN_TTL_SECS, type AccessTokens } from '../../access/oauth/access-tokens.js'
import { MCP_SCOPE } from '../../access/oauth/mcp-scope.js'
import { OauthError } from '../../access/oauth/oauth-error.js'
import type { RefreshLimit } from '../../access/oauth/refresh-limit.js'
import { oauthJson } from './oauth-responses.js'
import { readTokenForm } from './token-form.js'
import { isRefreshTokenShape, newRefreshToken, refreshExpiry } from './refresh-token.js'
import { isAuthorizationCodeShape } from './authorization-code.js'

/** How long a replaced refresh token still refreshes as it did (a client's parallel calls). */
const GRACE_MS = 30_000

/** What the endpoints work with. */
export interface TokenEndpointOptions {
  readonly grants: OauthGrantStore
  readonly tokens: AccessTokens
  /** The per-grant budget of refreshes. */
  readonly refreshes: RefreshLimit
  /** Told when a grant of `tunnelId` is revoked, so every node ends what it opened. */
  readonly onGrantRevoked?: (tunnelId: string) => Promise<void>
}

/** `/oauth/token` and `/oauth/revoke`. */
export class TokenEndpoint {
  readonly #o: TokenEndpointOptions

  constructor(opts: TokenEndpointOptions) {
    this.#o = opts
  }

  /** Answers a token request; true when it gave tokens (a refusal throws `OauthError`). */
  async token(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const form = await readTokenForm(req)
    const grantType = form.get('grant_type')
    const clientId = form.get('client_id')
    const resource = form.get('resource')
    let grant
    if (grantType === 'authorization_code') {
      const code = form.get('code') ?? ''
      // Any other is no code of ours: refused before a lookup (a stranger's junk costs nothing).
      const taken = isAuthorizationCodeShape(code)
        ? await this.#o.grants.takeCode(hashKey(code))
        : undefined
      if (taken !== undefined && 'replayedGrantId' in taken) {
        // A code presented twice was stolen or leaked: what it bought stops working too.
        await this.#revokeGrant(taken.replayedGrantId)
        throw new OauthError('invalid_grant', 'the code is unknown, used or expired')
      }
      if (!taken || taken.expiresAt.getTime() < Date.now()) {
        throw new OauthError('invalid_grant', 'the code is unknown, used or expired')
      }
      const verifier = form.get('code_verifier') ?? ''
      const problem =
        clientId !== taken.grant.clientId
          ? 'the code was issued to another client'
          : form.get('redirect_uri') !== null && form.get('redirect_uri') !== taken.redirectUri
            ? 'redirect_uri differs from the authorization request'
            : !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)
              ? 'code_verifier is missing or malformed (PKCE)'
              : createHash('sha256').update(verifier).digest('base64url') !== taken.codeChallenge
                ? 'code_verifier does not match the code_challenge (PKCE)'
                : resource !== null && resource !== taken.grant.resource
                  ? 'resource differs from the authorization request'
                  : null
      if (problem !== null) {
        await this.#revokeGrant(taken.grant.id)
        throw new OauthError('invalid_grant', problem)
      }
      grant = taken.grant
      const refresh = newRefreshToken()
      await this.#o.grants.setRefresh(grant.id, hashKey(refresh), refreshExpiry())
      oauthJson(res, 200, await this.#tokenBody(grant, refresh))
      return true
    }
    if (grantType === 'refresh_token') {
      const presented = form.get('refresh_token') ?? ''
      // Any other is no refresh token of ours: refused before a lookup.
      if (!isRefreshTokenShape(presented)) throw unknownRefresh()
      const old = hashKey(presented)
      // The client and the resource are checked before the token is spent: a request refused
      // for them leaves the refresh token as it was.
      const current = await this.#o.grants.byRefresh(old)
      const refused = current && (await this.#refreshRefusal(current, clientId, resource))
      if (refused) throw refused
      // Each rotation remembers the token it replaced: a loop must not grow that without bound.
      if (current) this.#o.refreshes.check(current.id)
      const refresh = this.#o.tokens.refreshSuccessor(presented)
      // A token no longer current is a refresh repeated at once, or a replay that ends its grant.
      const replacing = current ? undefined : await this.#o.grants.replacing(old)
      const rotated = await this.#o.grants.rotateRefresh(
        old,
        hashKey(refresh),
        refreshExpiry(),
        GRACE_MS,
      )
      // Reused: the grant is revoked, whether the token was current when read or not.
      const revoked = replacing ?? current
      if (rotated === 'reused' && revoked) await this.#o.onGrantRevoked?.(revoked.tunnelId)
      if (rotated === undefined) throw unknownRefresh()
      if (rotated === 'reused') {
        throw new OauthError(
          'invalid_grant',
          'the refresh token was already used; the grant is revoked, sign in again',
        )
      }
      // A refresh repeated at once (parallel calls) gave the grant without the checks above.
      const again = !current && (await this.#refreshRefusal(rotated, clientId, resource))
      if (again) throw again
      if (!rotated.repeated) this.#o.refreshes.spend(rotated.id)
      oauthJson(res, 200, await this.#tokenBody(rotated, refresh))
      return true
    }
    throw new OauthError(
      'unsupported_grant_type',
      'grant_type must be authorization_code or refresh_token',
    )
  }

  /** Why refreshing `grant` for `clientId` and `resource` is refused (another client's: revoked). */
  async #refreshRefusal(grant: OauthGrant, clientId: string | null, resource: string | null) {
    if (clientId !== null && clientId !== grant.clientId) {
      await this.#revokeGrant(grant.id)
      return new OauthError('invalid_grant', 'the refresh token was issued to another client')
    }
    if (resource !== null && resource !== grant.resource) {
      return new OauthError(
        'invalid_target',
        'a refresh token serves only the tunnel it was issued for',
      )
    }
    return null
  }

  /** Revoke grant `id`, and have every node end the requests its tokens opened. */
  async #revokeGrant(id: string): Promise<void> {
    const grant = await this.#o.grants.get(id)
    if (grant && (await this.#o.grants.revoke(null, id))) {
      await this.#o.onGrantRevoked?.(grant.tunnelId)
    }
  }

  async #tokenBody(
    grant: { id: string; accountId: string; clientId: string; resource: string },
    refresh: string,
  ) {
    return {
      access_token: await this.#o.tokens.issue(grant),
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECS,
      refresh_token: refresh,
      scope: MCP_SCOPE,
    }
  }

  /** Answers as RFC 7009 says; whether the token was one of ours (an unknown one is a failure). */
  async revoke(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const form = await readForm(req)
    const token = form.get('token') ?? ''
    if (token === '') throw new OauthError('invalid_request', 'token is required')
    // Only a token written as a refresh token is looked up as one (an access token is a JWT,
    // checked without a lookup). A refresh token the grant already replaced ends it too: the
    // client revoking holds it only because someone else refreshed first (a thief, or its own
    // call still answering), and the grant it means to end lives on under the token that
    // replaced it.
    const hash = isRefreshTokenShape(token) ? hashKey(token) : null
    const grantId = hash
      ? ((await this.#o.grants.byRefresh(hash))?.id ?? (await this.#o.grants.replacing(hash))?.id)
      : await this.#o.tokens.grantOf(token)
    if (grantId) await this.#revokeGrant(grantId)
    // RFC 7009: unknown tokens are answered like revoked ones.
    oauthJson(res, 200, {})
    return Boolean(grantId)
  }
}

function unknownRefresh(): OauthError {
  return new OauthError('invalid_grant', 'the refresh token is unknown, revoked or expired')
}
