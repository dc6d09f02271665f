// An OAuth client for tests of the v2 MCP SDK's own OAuth support: keeps what the SDK saves in
// memory, and "opens the browser" by driving a real Chromium page through burrowd's sign-in and
// consent page, approving the request and recording what the consent page said.
import type { OAuthClientProvider } from '@modelcontextprotocol/client'
import type { Page } from 'playwright-core'

/** The password test accounts are made with (the web-client helper's default). */
export const PASSWORD = 'correct horse battery'

type Saved = Record<string, unknown>

/** An in-memory OAuth client whose "browser" is a Chromium page signing in as `email`. */
export class BrowserProvider implements OAuthClientProvider {
  info: Saved | undefined
  saved: Saved | undefined
  verifier = ''
  consent: { client: string; tunnel: string; account: string } | null = null
  /** A Client ID Metadata Document URL to offer instead of registering (CIMD). */
  clientMetadataUrl?: string
  private readonly page: Page
  private readonly callback: string
  private readonly email: string
  constructor(page: Page, callback: string, email: string) {
    this.page = page
    this.callback = callback
    this.email = email
  }
  get redirectUrl() {
    return this.callback
  }
  get clientMetadata() {
    return {
      client_name: 'Burrow e2e agent',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.info as never
  }
  saveClientInformation(info: Saved) {
    this.info = info
  }
  tokens() {
    return this.saved as never
  }
  saveTokens(tokens: Saved) {
    this.saved = tokens
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
  async redirectToAuthorization(url: URL) {
    await this.page.goto(url.toString())
    if (new URL(this.page.url()).pathname === '/signin') {
      await this.page.fill('#email', this.email)
      await this.page.fill('#password', PASSWORD)
      await Promise.all([
        this.page.waitForURL(/\/oauth\/authorize\?/),
        this.page.click('button[type=submit]'),
      ])
    }
    this.consent = {
      client: (await this.page.textContent('#consent-client')) ?? '',
      tunnel: (await this.page.textContent('#consent-tunnel')) ?? '',
      account: (await this.page.textContent('#consent-account')) ?? '',
    }
    // Approve is enabled by the pointer moving on the page, as a reader's does.
    await this.page.mouse.move(2, 2)
    await this.page.mouse.move(40, 40)
    await Promise.all([
      this.page.waitForURL(new RegExp(`^${this.callback}`)),
      this.page.click('#approve'),
    ])
  }
}
