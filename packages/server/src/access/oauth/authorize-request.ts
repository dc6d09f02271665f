/**
 * The checks of one authorization request (`/oauth/authorize`, GET to ask, POST to answer): the
 * client and its redirect URI, `response_type=code`, PKCE with S256, and a `resource` that is one
 * of burrowd's tunnel `/mcp` URLs. Every failure is shown on the page, never sent to the redirect
 * URI: anyone may register a client whose redirect URI is their own site, and an error redirect
 * made before the owner has seen the consent page would bounce users there (RFC 9700 §4.11.2).
 * Only the owner's own answer (approve or deny) goes back to the client.
 */
import type { OauthClient } from '../../store/oauth-client-store.js'
import type { ClientRegistry } from './client-registry.js'
import { OauthError } from './oauth-error.js'

/** A request that passed every check that does not need the signed-in user. */
export interface AuthorizeRequest {
  readonly client: OauthClient
  readonly redirectUri: string
  readonly state: string | null
  readonly codeChallenge: string
  readonly resource: string
  /** The tunnel host label the resource names. */
  readonly label: string
}

/** What went wrong, to show on the page. */
export interface AuthorizeProblem {
  readonly kind: 'show'
  readonly error: OauthError
}

/** The parameters' names, for the consent form's hidden fields. */
export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
] as const

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** Check `params`; `labelOf` maps a resource URL to its tunnel label (null: not a tunnel's). */
export async function checkAuthorizeRequest(
  params: URLSearchParams,
  registry: ClientRegistry,
  labelOf: (resource: string) => Promise<string | null>,
  requester?: string,
): Promise<AuthorizeRequest | AuthorizeProblem> {
  for (const name of AUTHORIZE_PARAMS) {
    if (params.getAll(name).length > 1) {
      return show('invalid_request', `the parameter ${name} is repeated`)
    }
  }
  let client: OauthClient
  try {
    client = await registry.find(params.get('client_id') ?? '', requester)
  } catch (err) {
    if (err instanceof OauthError) return { kind: 'show', error: err }
    throw err
  }
  const asked = params.get('redirect_uri')
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : null)
  if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
    return show(
      'invalid_request',
      asked === null
        ? 'redirect_uri is required for this client'
        : 'redirect_uri is not one the client registered',
    )
  }
  const state = params.get('state')
  if (params.get('response_type') !== 'code') {
    return show('unsupported_response_type', 'response_type must be code')
  }
  const challenge = params.get('code_challenge')
  if (challenge === null || params.get('code_challenge_method') !== 'S256') {
    return show(
      'invalid_request',
      'PKCE is required: send code_challenge with code_challenge_method=S256',
    )
  }
  if (!CHALLENGE.test(challenge)) {
    return show('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)')
  }
  const resource = params.get('resource')
  const label = resource === null || resource.length > 2048 ? null : await labelOf(resource)
  if (resource === null || label === null) {
    return show(
      'invalid_target',
      "resource must be the tunnel's MCP URL, https://<subdomain>--<account>.<zone>/mcp or its custom domain's",
    )
  }
  return { client, redirectUri, state, codeChallenge: challenge, resource, label }
}

function show(code: string, description: string): AuthorizeProblem {
  return { kind: 'show', error: new OauthError(code, description) }
}

/** `uri` with the OAuth response parameters added to its query. */
export function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v)
  return url.toString()
}
