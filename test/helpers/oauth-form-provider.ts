// An OAuth client for tests of the v1 MCP SDK's own OAuth support (`@modelcontextprotocol/sdk`):
// keeps what the SDK saves in memory, and "opens the browser" as the tunnel's owner, signed in:
// reads the consent page the SDK's authorization URL shows and posts its form with Approve, as
// the page's button does. Records the authorization URL the SDK built and the code it got back.
import assert from 'node:assert/strict'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { WebUser } from './web-client.js'

/** An in-memory OAuth client whose "browser" is `owner`'s signed-in session. */
export class OwnerFormProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  /** The authorization URL the SDK sent the "browser" to, last. */
  asked: URL | undefined
  /** The code the consent page's approval sent back, last. */
  code = ''
  private readonly owner: WebUser
  private readonly callback: string
  constructor(owner: WebUser, callback: string) {
    this.owner = owner
    this.callback = callback
  }
  get redirectUrl() {
    return this.callback
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Burrow e2e agent (SDK v1)',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
  async redirectToAuthorization(url: URL) {
    this.asked = url
    const consent = await this.owner.page(url.pathname + url.search)
    assert.equal(consent.status, 200, `the consent page answered ${consent.status}`)
    const fields = Object.fromEntries(
      [...(await consent.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)]
        .filter((m) => m[1] !== '_csrf')
        .map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
    )
    const approved = await this.owner.form('/oauth/authorize', { ...fields, decision: 'approve' })
    assert.ok([302, 303].includes(approved.status), `consent answered ${approved.status}`)
    const back = new URL(approved.headers.get('location') ?? '')
    assert.equal(`${back.origin}${back.pathname}`, this.callback)
    this.code = back.searchParams.get('code') ?? ''
  }
}
