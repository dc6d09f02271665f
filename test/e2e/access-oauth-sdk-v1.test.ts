/**
 * The official v1 MCP client SDK's own OAuth support (`@modelcontextprotocol/sdk`) against a real
 * burrowd, on a tunnel's own host and on its custom domain: the 401 names the metadata and the
 * scope the tokens need (MCP authorization, 2025-11-25: servers SHOULD put `scope` in the
 * challenge, and the SDK asks for what it names), the SDK registers (DCR), sends the owner to
 * the consent page with PKCE, redeems the code, calls tools and refreshes. What a custom domain
 * tells an agent before anyone signs in (the 401, both metadata documents) names the domain
 * and the service, never the tunnel's own host label, which carries the account's slug.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Child } from '../helpers/child.js'
import { buyPlan } from '../helpers/dev-checkout.js'
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js'
import { OwnerFormProvider } from '../helpers/oauth-form-provider.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startCountingServer, type CountingServer } from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'
const SLUG = 'quillon'
const DOMAIN = 'agents.example.test'

describe('the v1 SDK signs in from the challenge', { timeout: 120_000 }, () => {
  let dns: DnsServer
  let service: Service
  let server: CountingServer
  let owner: WebUser
  let client: Child
  let tunnelId: string
  let mcpUrl: string

  const call = (url: string, authorization?: string) =>
    publicFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })

  /** Connect the v1 SDK to `url` with `provider`'s tokens (after the sign-in). */
  const connect = async (url: string, provider: OwnerFormProvider) => {
    const agent = new Client({ name: 'sdk-v1-e2e', version: '1.0.0' })
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        authProvider: provider,
        fetch: publicFetch,
      }),
    )
    return agent
  }

  /** The SDK meets the 401, signs in and comes back with tokens; the agent then calls a tool. */
  const signIn = async (url: string) => {
    const provider = new OwnerFormProvider(owner, REDIRECT)
    await assert.rejects(connect(url, provider), UnauthorizedError)
    assert.equal(provider.asked?.searchParams.get('scope'), 'mcp', 'the scope the 401 named')
    assert.equal(provider.asked?.searchParams.get('resource'), url)
    assert.ok(provider.code, 'the owner approved')
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider,
      fetch: publicFetch,
    })
    await transport.finishAuth(provider.code)
    assert.equal(provider.saved?.scope, 'mcp')
    const agent = await connect(url, provider)
    const result = await agent.callTool({ name: 'echo', arguments: { text: 'hi' } })
    assert.equal(result.isError ?? false, false)
    await agent.close()
    return provider
  }

  before(async () => {
    dns = await startDnsServer()
    service = await startService({ BURROW_LOG: 'info', BURROW_DNS_SERVERS: dns.address })
    server = await startCountingServer()
    owner = await signUp(`http://127.0.0.1:${service.port}`, SLUG)
    const made = await owner.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'notes' },
    )
    assert.equal(made.status, 201)
    tunnelId = made.json.tunnel.id
    mcpUrl = made.json.tunnel.mcp_url
    client = await startClient(service, made.json.key, ['--upstream', server.url])
  })

  after(async () => {
    await client?.stop()
    await server?.child.stop()
    await service?.close()
    await dns?.close()
  })

  it('on the tunnel host: the 401 names the scope; DCR, PKCE, consent, calls and a refresh', async () => {
    const metadataUrl = mcpUrl.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp')
    const challenge = await call(mcpUrl)
    assert.equal(challenge.status, 401)
    assert.equal(
      challenge.headers.get('www-authenticate'),
      `Bearer resource_metadata="${metadataUrl}", scope="mcp"`,
    )
    const altered = await call(mcpUrl, 'Bearer not-a-token')
    assert.equal(
      altered.headers.get('www-authenticate'),
      `Bearer resource_metadata="${metadataUrl}", scope="mcp", error="invalid_token", error_description="the access token is not valid for this tunnel"`,
    )

    const provider = await signIn(mcpUrl)
    const first = provider.saved!
    assert.equal(await auth(provider, { serverUrl: mcpUrl, fetchFn: publicFetch }), 'AUTHORIZED')
    assert.notEqual(provider.saved?.refresh_token, first.refresh_token, 'rotated')
    const agent = await connect(mcpUrl, provider)
    assert.ok((await agent.listTools()).tools.some((t) => t.name === 'echo'))
    await agent.close()
  })

  it('on a custom domain: what an agent is told names the domain only, and the SDK signs in', async () => {
    await buyPlan(owner.base, (method, path, body) => owner.api(method, path, body), 'pro')
    const added = await owner.api<{ records: { type: string; name: string; value: string }[] }>(
      'POST',
      `/api/tunnels/${tunnelId}/domains`,
      { domain: DOMAIN },
    )
    assert.equal(added.status, 201, JSON.stringify(added.json))
    for (const r of added.json.records) {
      dns.records.set(r.name, [
        r.type === 'TXT' ? { type: 'TXT', data: r.value } : { type: 'CNAME', domain: r.value },
      ])
    }
    const verified = await owner.api<{ state: string; mcp_url: string }>(
      'POST',
      `/api/tunnels/${tunnelId}/domains/${DOMAIN}/verify`,
    )
    assert.equal(verified.json.state, 'verified', JSON.stringify(verified.json))
    const url = verified.json.mcp_url
    const origin = new URL(url).origin
    const issuer = `http://localhost:${service.port}`

    // The 401: the domain's metadata and the scope, nothing else.
    const challenge = await call(url)
    assert.equal(challenge.status, 401)
    const named = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`
    assert.equal(challenge.headers.get('www-authenticate'), named)
    const told = [named, await challenge.text()]
    // RFC 9728 at both paths: the domain is the resource and its name; the service authorizes.
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await publicFetch(`${origin}${path}`)
      assert.equal(res.status, 200)
      const text = await res.text()
      assert.deepEqual(JSON.parse(text), {
        resource: url,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
        resource_name: `Burrow tunnel ${DOMAIN}`,
      })
      told.push(text)
    }
    // RFC 8414 at the issuer, which is the service's host (the authorization server's own name).
    const asMetadata = await fetch(`${owner.base}/.well-known/oauth-authorization-server`)
    told.push(await asMetadata.text())
    // Before, the metadata's resource_name was `Burrow tunnel notes--quillon`.
    for (const text of told) assert.doesNotMatch(text, new RegExp(SLUG), text)

    // The v1 SDK signs in through the domain; its token is bound to the domain.
    const provider = await signIn(url)
    const token = `Bearer ${String(provider.saved!.access_token)}`
    assert.equal((await call(url, token)).status, 200)
    assert.equal((await call(mcpUrl, token)).status, 401, 'a token for the domain is the domain’s')
  })
})
