/**
 * Custom domains end to end: a real burrowd behind a real Caddy (internal CA, on-demand TLS
 * asking burrowd), a real DNS server on loopback that burrowd checks with
 * (`BURROW_DNS_SERVERS`), a real `burrow up`, and the official MCP SDK as the agent over HTTPS
 * trusting Caddy's root. A domain is added, seen unverified, its records published, verified, and
 * served at `https://<domain>/mcp`; Free cannot add one; another account cannot claim it; a
 * downgrade answers 402 `plan_limit` on the domain while the tunnel's own URL works; removal
 * stops routing and Caddy's question gets no. Every refused name is refused through the API.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CADDY, startCaddy, type Caddy } from '../helpers/caddy.js'
import type { Child } from '../helpers/child.js'
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js'
import { freePort } from '../helpers/free-port.js'
import { buyPlan } from '../helpers/dev-checkout.js'
import { usageSet } from '../helpers/quota-stack.js'
import { rawRequest } from '../helpers/raw-http.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const HELLO = join(ROOT, 'examples/hello-server.mjs')
const ZONE = 'tunnels.test'
const DOMAIN = 'mcp.example.test'

interface DomainJson {
  domain: string
  unicode: string
  state: 'pending' | 'verified'
  serving: boolean
  url: string
  mcp_url: string
  records: { type: string; name: string; value: string }[]
  checked_at: string | null
  verified_at: string | null
  problem: string | null
}

interface ApiError {
  error?: { code: string; message: string; limit?: number; upgrade_url?: string }
}

/** Wait until `check` holds, polling (burrowd caches routes for a few seconds). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 200))
}

describe('custom domains behind Caddy', { skip: !existsSync(CADDY), timeout: 240_000 }, () => {
  let dns: DnsServer
  let service: Service
  let caddy: Caddy
  let client: Child
  let tunnel: { id: string; key: string; publicUrl: string }
  let base: string
  let token: string
  let httpsPort: number

  /** An API call as account `as` (its API token). */
  async function api<T>(method: string, path: string, body?: unknown, as = token) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${as}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as T & ApiError }
  }

  async function operator(...args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [BURROWD, ...args], { env: service.env })
    return stdout
  }

  /** A new account with `plan` and an API token for it. */
  async function account(slug: string, plan: 'free' | 'pro' | 'scale'): Promise<string> {
    await operator(
      'account',
      'create',
      '--email',
      `${slug}@example.com`,
      '--slug',
      slug,
      '--plan',
      plan,
    )
    const made = JSON.parse(await operator('token', 'create', '--account', slug, '--json')) as {
      token: string
    }
    return made.token
  }

  /** Caddy's question, asked as Caddy asks it. */
  async function ask(domain: string): Promise<number> {
    return (await fetch(`${base}/internal/tls-ask?domain=${encodeURIComponent(domain)}`)).status
  }

  /** An MCP agent (the official SDK) connected to `url` through Caddy. */
  async function agent(url: string): Promise<Client> {
    const c = new Client({ name: 'custom-domain-agent', version: '1.0.0' })
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: caddy.fetch }))
    return c
  }

  function initialize(id: number): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })
  }

  async function postMcp(url: string, body: string = initialize(1)): Promise<Response> {
    return caddy.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    })
  }

  function toolCall(id: number, name: string): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    })
  }

  before(async () => {
    dns = await startDnsServer()
    httpsPort = await freePort()
    service = await startService(
      {
        BURROW_ZONE: ZONE,
        BURROW_PUBLIC_SCHEME: 'https',
        BURROW_PUBLIC_PORT: String(httpsPort),
        BURROW_DNS_SERVERS: dns.address,
        BURROW_LOG: 'info',
      },
      { plan: 'free' },
    )
    base = `http://127.0.0.1:${service.port}`
    caddy = await startCaddy(service.port, ZONE, httpsPort)
    const made = JSON.parse(await operator('token', 'create', '--account', 'acme', '--json')) as {
      token: string
    }
    token = made.token
    // Pro, bought through the dev payment provider's checkout as a customer would.
    await buyPlan(base, api, 'pro')
    tunnel = await service.tunnel('files')
    client = await startClient(service, tunnel.key, ['--stdio', `${process.execPath} ${HELLO}`])
  })

  after(async () => {
    await client?.stop()
    await caddy?.close()
    await service?.close()
    await dns?.close()
  })

  it('adds a domain, shows it unverified with its records, verifies it by DNS and serves MCP over HTTPS', async () => {
    const added = await api<DomainJson>('POST', `/api/tunnels/${tunnel.id}/domains`, {
      domain: 'MCP.Example.test',
    })
    assert.equal(added.status, 201, JSON.stringify(added.json))
    assert.equal(added.json.domain, DOMAIN)
    assert.equal(added.json.state, 'pending')
    assert.equal(added.json.serving, false)
    assert.equal(added.json.mcp_url, `https://${DOMAIN}:${httpsPort}/mcp`)
    const [txt, cname] = added.json.records
    assert.equal(txt?.type, 'TXT')
    assert.equal(txt?.name, `_burrow-challenge.${DOMAIN}`)
    assert.match(txt?.value ?? '', /^burrow-verify-/)
    assert.deepEqual(cname, { type: 'CNAME', name: DOMAIN, value: `files--acme.${ZONE}` })

    const listed = await api<{ domains: DomainJson[] }>('GET', `/api/tunnels/${tunnel.id}/domains`)
    assert.deepEqual(
      listed.json.domains.map((d) => [d.domain, d.state]),
      [[DOMAIN, 'pending']],
    )
    // Unverified: Caddy is told no, so no certificate and no connection.
    assert.equal(await ask(DOMAIN), 404)
    await assert.rejects(postMcp(`https://${DOMAIN}:${httpsPort}/mcp`))

    const early = await api<DomainJson>(
      'POST',
      `/api/tunnels/${tunnel.id}/domains/${DOMAIN}/verify`,
    )
    assert.equal(early.status, 200)
    assert.equal(early.json.state, 'pending')
    assert.match(early.json.problem ?? '', /no TXT record at _burrow-challenge\.mcp\.example\.test/)
    assert.ok(early.json.checked_at)

    // The owner publishes the records; the check now verifies.
    dns.records.set(`_burrow-challenge.${DOMAIN}`, [{ type: 'TXT', data: txt?.value ?? '' }])
    dns.records.set(DOMAIN, [{ type: 'CNAME', domain: cname?.value ?? '' }])
    const verified = await api<DomainJson>(
      'POST',
      `/api/tunnels/${tunnel.id}/domains/${DOMAIN}/verify`,
    )
    assert.equal(verified.json.state, 'verified', JSON.stringify(verified.json))
    assert.equal(verified.json.serving, true)
    assert.equal(verified.json.problem, null)
    assert.equal(await ask(DOMAIN), 200)

    // The official SDK over HTTPS, trusting Caddy's root, reaches the tunnel's local server.
    const mcp = await agent(`https://${DOMAIN}:${httpsPort}/mcp`)
    const tools = await mcp.listTools()
    assert.ok(tools.tools.some((t) => t.name === 'hello'))
    const answer = await mcp.callTool({ name: 'hello', arguments: { name: 'Ada' } })
    assert.match(JSON.stringify(answer.content), /Hello, Ada!/)
    await (mcp.transport as StreamableHTTPClientTransport).terminateSession()
    await mcp.close()

    // Only /mcp is served there.
    const other = await caddy.fetch(`https://${DOMAIN}:${httpsPort}/dashboard`)
    assert.equal(other.status, 404)
    assert.equal(other.headers.get('x-burrow-error'), 'not_found')

    // The API's tunnel shows the custom URL, and its snippet uses it.
    const shown = await api<{ custom_url: string; snippet: unknown; mcp_url: string }>(
      'GET',
      `/api/tunnels/${tunnel.id}`,
    )
    assert.equal(shown.json.custom_url, `https://${DOMAIN}:${httpsPort}/mcp`)
    assert.match(JSON.stringify(shown.json.snippet), /mcp\.example\.test/)
    assert.equal(shown.json.mcp_url, `${tunnel.publicUrl}/mcp`)
  })

  it('tells a reconnecting `burrow up` the custom URL, for its snippet', async () => {
    await client.stop()
    client = await startClient(service, tunnel.key, ['--stdio', `${process.execPath} ${HELLO}`])
    assert.ok(
      client.stdout.includes(`https://${DOMAIN}:${httpsPort}/mcp`),
      `the banner names the custom URL:\n${client.stdout}`,
    )
    assert.match(client.stdout, /"url": "https:\/\/mcp\.example\.test:\d+\/mcp"/)
  })

  it('applies the tunnel’s policy and quotas on the custom domain as on its own hostname', async () => {
    const url = `https://${DOMAIN}:${httpsPort}/mcp`
    const policy = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      tools: { allow: ['*'], deny: ['hello'] },
    })
    assert.equal(policy.status, 200, JSON.stringify(policy.json))
    const denied = await postMcp(url, toolCall(7, 'hello'))
    assert.equal(denied.status, 403)
    assert.equal(denied.headers.get('x-burrow-error'), 'tool_denied')
    assert.equal(((await denied.json()) as { id: number }).id, 7)

    await usageSet(service, tunnel.id, ['--tool-calls', '1000000'])
    const over = await postMcp(url, toolCall(8, 'add'))
    assert.equal(over.status, 429)
    assert.equal(over.headers.get('x-burrow-error'), 'quota_exceeded')
    // The tunnel's own hostname is refused alike: one tunnel, one set of counters.
    const own = await postMcp(`${tunnel.publicUrl}/mcp`, toolCall(9, 'add'))
    assert.equal(own.headers.get('x-burrow-error'), 'quota_exceeded')

    await usageSet(service, tunnel.id, ['--tool-calls', '0'])
    await api('PUT', `/api/tunnels/${tunnel.id}/policy`, { tools: { allow: ['*'], deny: [] } })
  })

  it('ends a GET stream open on the domain when the domain is removed (found by a hostile review)', async () => {
    // The re-check of open streams asked only the access gate: a stream opened on the domain ran
    // on after its owner removed it, for as long as the agent kept it open.
    const url = `https://${DOMAIN}:${httpsPort}/mcp`
    const init = await postMcp(url)
    assert.equal(init.status, 200)
    const session = init.headers.get('mcp-session-id')
    assert.ok(session)
    await init.body?.cancel()
    const stream = await caddy.fetch(url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
    })
    assert.equal(stream.status, 200)
    const ended = (async () => {
      try {
        for await (const _ of stream.body!) void _
      } catch {
        // Cut: what the test waits for, as much as an end.
      }
    })()
    assert.equal((await api('DELETE', `/api/tunnels/${tunnel.id}/domains/${DOMAIN}`)).status, 204)
    await ended

    // Added and verified again, for the tests after this one.
    const added = await api<DomainJson>('POST', `/api/tunnels/${tunnel.id}/domains`, {
      domain: DOMAIN,
    })
    assert.equal(added.status, 201, JSON.stringify(added.json))
    const [txt] = added.json.records
    dns.records.set(`_burrow-challenge.${DOMAIN}`, [{ type: 'TXT', data: txt?.value ?? '' }])
    const verified = await api<DomainJson>(
      'POST',
      `/api/tunnels/${tunnel.id}/domains/${DOMAIN}/verify`,
    )
    assert.equal(verified.json.state, 'verified', JSON.stringify(verified.json))
  })

  it('refuses Free accounts, a second domain, another account’s claim and every bad name', async () => {
    const free = await account('freebie', 'free')
    const freeTunnel = JSON.parse(
      await operator('tunnel', 'create', '--account', 'freebie', '--json'),
    ) as { id: string }
    const refused = await api(
      'POST',
      `/api/tunnels/${freeTunnel.id}/domains`,
      { domain: 'free.example.test' },
      free,
    )
    assert.equal(refused.status, 402)
    assert.equal(refused.json.error?.code, 'plan_limit')
    assert.match(refused.json.error?.message ?? '', /Pro or Scale/)
    assert.equal(refused.json.error?.upgrade_url, '/dashboard/billing')

    // One per tunnel.
    const second = await api('POST', `/api/tunnels/${tunnel.id}/domains`, {
      domain: 'two.example.test',
    })
    assert.equal(second.status, 409)
    assert.match(second.json.error?.message ?? '', /already has the custom domain/)

    // Another account cannot claim the verified domain, in any spelling.
    const rival = await account('rival', 'scale')
    const rivalTunnel = JSON.parse(
      await operator('tunnel', 'create', '--account', 'rival', '--json'),
    ) as { id: string }
    for (const spelling of [DOMAIN, 'MCP.EXAMPLE.TEST.']) {
      const claim = await api(
        'POST',
        `/api/tunnels/${rivalTunnel.id}/domains`,
        { domain: spelling },
        rival,
      )
      assert.equal(claim.status, 409, spelling)
      assert.match(claim.json.error?.message ?? '', /already verified by another account/)
    }
    // Nor see, verify or remove it through its own tunnels, or reach ours.
    assert.equal(
      (
        await api(
          'POST',
          `/api/tunnels/${rivalTunnel.id}/domains/${DOMAIN}/verify`,
          undefined,
          rival,
        )
      ).status,
      404,
    )
    assert.equal(
      (await api('DELETE', `/api/tunnels/${rivalTunnel.id}/domains/${DOMAIN}`, undefined, rival))
        .status,
      404,
    )
    assert.equal(
      (await api('GET', `/api/tunnels/${tunnel.id}/domains`, undefined, rival)).status,
      404,
    )

    const bad: [unknown, RegExp][] = [
      ['*.example.test', /wildcard/],
      [ZONE, /service's own zone/],
      [`files--acme.${ZONE}`, /service's own zone/],
      ['p\u0430ypal.com', /mixes Latin and Cyrillic/],
      ['xn--80ak6aa92e.com', /imitate Latin/],
      ['https://mcp.example.test/mcp', /without a scheme/],
      ['203.0.113.9', /IP address/],
      ['nodots', /at least two labels/],
      ['', /enter a domain/],
      ['a'.repeat(300), /not a valid domain name|not a valid DNS label/],
      [42, /"domain" must be a domain name/],
    ]
    for (const [domain, reason] of bad) {
      const r = await api('POST', `/api/tunnels/${rivalTunnel.id}/domains`, { domain }, rival)
      assert.equal(r.status, 400, String(domain))
      assert.equal(r.json.error?.code, 'invalid')
      assert.match(r.json.error?.message ?? '', reason)
    }
    // Malformed and oversized bodies get the API's error object.
    const malformed = await api(
      'POST',
      `/api/tunnels/${rivalTunnel.id}/domains`,
      '{"domain":',
      rival,
    )
    assert.equal(malformed.status, 400)
    const huge = await api(
      'POST',
      `/api/tunnels/${rivalTunnel.id}/domains`,
      { domain: 'x'.repeat(2_000_000) },
      rival,
    )
    assert.equal(huge.status, 413)
    // An internationalised name that deceives no one is stored in its ASCII form, shown as typed,
    // and can be named either way.
    const idn = await api<DomainJson>(
      'POST',
      `/api/tunnels/${rivalTunnel.id}/domains`,
      { domain: 'mcp.bücher.test' },
      rival,
    )
    assert.equal(idn.status, 201, JSON.stringify(idn.json))
    assert.equal(idn.json.domain, 'mcp.xn--bcher-kva.test')
    assert.equal(idn.json.unicode, 'mcp.bücher.test')
    assert.equal(idn.json.records[0]?.name, '_burrow-challenge.mcp.xn--bcher-kva.test')
    const unicodePath = `/api/tunnels/${rivalTunnel.id}/domains/${encodeURIComponent('mcp.bücher.test')}`
    assert.equal((await api('DELETE', unicodePath, undefined, rival)).status, 204)
    // Concurrent adds of one name to the rival's tunnels: one is stored, the others are told why.
    const more = await Promise.all(
      [1, 2, 3].map(
        async () =>
          JSON.parse(await operator('tunnel', 'create', '--account', 'rival', '--json')) as {
            id: string
          },
      ),
    )
    const raced = await Promise.all(
      more.map((t) =>
        api('POST', `/api/tunnels/${t.id}/domains`, { domain: 'race.example.test' }, rival),
      ),
    )
    assert.deepEqual(raced.map((r) => r.status).sort(), [201, 409, 409])
    // Checks now are limited per account (each sends DNS queries): a burst gets 429 past 20.
    const holder = more[raced.findIndex((r) => r.status === 201)]!
    const checks = await Promise.all(
      Array.from({ length: 25 }, () =>
        api('POST', `/api/tunnels/${holder.id}/domains/race.example.test/verify`, undefined, rival),
      ),
    )
    const statuses = checks.map((c) => c.status)
    assert.equal(statuses.filter((st) => st === 200).length, 20, String(statuses))
    assert.equal(statuses.filter((st) => st === 429).length, 5)
    assert.equal(checks.find((c) => c.status === 429)?.json.error?.code, 'rate_limited')
    // Caddy's question about names that are not verified domains is no; odd questions too.
    for (const q of [
      'race.example.test',
      ZONE,
      `files--acme.${ZONE}`,
      '127.0.0.1',
      'x'.repeat(300),
    ]) {
      assert.equal(await ask(q), 404, q)
    }
    assert.equal(
      (await fetch(`${base}/internal/tls-ask?domain=${DOMAIN}&domain=${DOMAIN}`)).status,
      404,
    )
    assert.equal((await fetch(`${base}/internal/tls-ask`)).status, 404, 'no domain asked')
    // Many questions at once (a burst of handshakes) are all answered, the verified one yes.
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => ask(i % 3 === 0 ? DOMAIN : `n${i}.example.test`)),
    )
    assert.deepEqual(
      burst,
      Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 200 : 404)),
    )
    // Malformed and oversized domains in API paths.
    const badEscape = await api('POST', `/api/tunnels/${tunnel.id}/domains/%E0%A4%A/verify`)
    assert.equal(badEscape.status, 400)
    const longPath = await api('DELETE', `/api/tunnels/${tunnel.id}/domains/${'a'.repeat(300)}`)
    assert.equal(longPath.status, 404)
    // Through the TLS terminator (as from the internet) the question is not answered at all.
    const relayed = await fetch(`${base}/internal/tls-ask?domain=${DOMAIN}`, {
      headers: { 'x-forwarded-for': '198.51.100.1' },
    })
    assert.notEqual(relayed.status, 200)
    // Nor through the real Caddy from outside, nor to a public Host on loopback.
    const viaCaddy = await caddy.fetch(
      `https://${ZONE}:${httpsPort}/internal/tls-ask?domain=${DOMAIN}`,
    )
    assert.equal(viaCaddy.status, 404)
    assert.equal(await ask(DOMAIN), 200, 'while Caddy itself, asking directly, is told yes')
    const publicHost = await rawRequest(service.port, [
      `GET /internal/tls-ask?domain=${DOMAIN} HTTP/1.1`,
      `Host: ${ZONE}`,
    ])
    assert.equal(publicHost.status, 404)
  })

  it('answers 402 plan_limit on the domain after a downgrade, while the tunnel’s own URL works', async () => {
    // The subscription ends now at the payment provider (the dev provider's API, with the key
    // burrowd generated for it); its webhook downgrades the account to Free.
    const db = new Database(join(service.dataDir, 'burrow.db'), { readonly: true })
    let apiKey: string
    let subscriptionId: string
    try {
      apiKey = (
        db.prepare("select value from settings where key = 'dev_paddle_api_key'").get() as {
          value: string
        }
      ).value
      subscriptionId = (
        db.prepare('select subscription_id from subscriptions').get() as { subscription_id: string }
      ).subscription_id
    } finally {
      db.close()
    }
    const cancelled = await fetch(`${base}/dev/paddle/subscriptions/${subscriptionId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ effective_from: 'immediately' }),
    })
    assert.equal(cancelled.status, 200, await cancelled.text())
    await until(
      async () => (await api<{ plan: string }>('GET', '/api/account')).json.plan === 'free',
    )
    const url = `https://${DOMAIN}:${httpsPort}/mcp`
    // Polled with calls that open no session (an initialize would take one of the plan's places).
    await until(async () => (await postMcp(url, toolCall(2, 'add'))).status === 402)
    const refused = await postMcp(url)
    assert.equal(refused.headers.get('x-burrow-error'), 'plan_limit')
    const body = (await refused.json()) as {
      id: number
      error: { code: number; data: { policy_code: string; http_status: number; reason: string } }
    }
    assert.equal(body.id, 1)
    assert.equal(body.error.code, -32000)
    assert.equal(body.error.data.policy_code, 'plan_limit')
    assert.equal(body.error.data.http_status, 402)
    assert.match(body.error.data.reason, /Free plan does not serve mcp\.example\.test/)
    assert.equal(await ask(DOMAIN), 404, 'no new certificate for a plan without custom domains')
    // burrowd's metrics count the custom domain's answers with the edge's.
    const metrics = await (await fetch(`${base}/metrics`)).text()
    assert.match(
      metrics,
      /burrowd_edge_requests_total\{status="402",policy_code="plan_limit"\} [1-9]/,
    )

    const own = await agent(`${tunnel.publicUrl}/mcp`)
    assert.ok((await own.listTools()).tools.length > 0)
    await (own.transport as StreamableHTTPClientTransport).terminateSession()
    await own.close()
    const listed = await api<{ domains: DomainJson[] }>('GET', `/api/tunnels/${tunnel.id}/domains`)
    assert.equal(listed.json.domains[0]?.serving, false)
    assert.match(listed.json.domains[0]?.problem ?? '', /Free plan does not serve this domain/)
  })

  it('stops routing a removed domain, and Caddy’s question says no', async () => {
    const removed = await api('DELETE', `/api/tunnels/${tunnel.id}/domains/${DOMAIN}`)
    assert.equal(removed.status, 204)
    assert.equal(await ask(DOMAIN), 404)
    // Caddy still holds the certificate it issued, but burrowd no longer routes the name.
    const res = await postMcp(`https://${DOMAIN}:${httpsPort}/mcp`)
    assert.equal(res.status, 404)
    assert.notEqual(res.headers.get('x-burrow-error'), 'plan_limit')
    // Nor does the name show the dashboard: before, a removed domain fell through to the app,
    // and its sign-in page, its API and its OAuth pages answered at the customer's name, over
    // the certificate Caddy still holds.
    for (const path of ['/', '/signin', '/dashboard', '/api/tunnels', '/oauth/authorize']) {
      const shown = await caddy.fetch(`https://${DOMAIN}:${httpsPort}${path}`, {
        headers: { accept: 'text/html' },
        redirect: 'manual',
      })
      const body = await shown.text()
      assert.equal(shown.status, 404, `${path}: ${body.slice(0, 200)}`)
      assert.equal(shown.headers.get('x-burrow-error'), 'tunnel_not_found', path)
      assert.doesNotMatch(body, /<form|sign in/i, path)
      assert.equal(shown.headers.get('set-cookie'), null, path)
    }
    assert.deepEqual(
      (await api<{ domains: DomainJson[] }>('GET', `/api/tunnels/${tunnel.id}/domains`)).json
        .domains,
      [],
    )
    assert.equal((await api('DELETE', `/api/tunnels/${tunnel.id}/domains/${DOMAIN}`)).status, 404)
  })

  it('ships a deploy/Caddyfile that Caddy accepts and that asks burrowd', async () => {
    const text = readFileSync(join(ROOT, 'deploy/Caddyfile'), 'utf8')
    assert.match(text, /ask http:\/\/127\.0\.0\.1:7100\/internal\/tls-ask/)
    assert.match(text, /on_demand/)
    // Debian's caddy has no DNS provider modules: check the rest with the internal issuer.
    const dir = mkdtempSync(join(tmpdir(), 'burrow-caddyfile-'))
    try {
      const file = join(dir, 'Caddyfile')
      writeFileSync(file, text.replace(/dns cloudflare .*/, 'issuer internal'))
      const { stdout } = await run(CADDY, ['adapt', '--config', file, '--adapter', 'caddyfile'])
      const json = JSON.parse(stdout) as object
      assert.match(JSON.stringify(json), /\*\.tunnels\.example\.com/)
      assert.match(JSON.stringify(json), /"on_demand":true/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    // The question answers GET only.
    const post = await fetch(`${base}/internal/tls-ask?domain=${DOMAIN}`, { method: 'POST' })
    assert.equal(post.status, 405)
    assert.equal(post.headers.get('x-burrow-error'), 'method_not_allowed')
  })
})
