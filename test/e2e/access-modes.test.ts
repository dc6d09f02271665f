/**
 * Who may call a tunnel, end to end: real burrowd, real `burrow up`, a real local MCP server
 * that logs the headers it gets, and the official v2 SDK client as the agent. Tunnels owners
 * make are `oauth` by default and answer callers without a token exactly as a tunnel nobody made
 * (online or not); `token` mode takes the tunnel's own `atk_` keys only; IP allowlists admit or
 * refuse; the credential an agent shows Burrow never reaches the local server; and the access
 * API refuses bad input with its error object.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { Child } from '../helpers/child.js'
import { startChild } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { postMcp, toolCall } from '../helpers/quota-stack.js'
import {
  BURROWD,
  EVERYTHING,
  ROOT,
  startClient,
  startService,
  type Service,
} from '../helpers/stack.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)
const HEADER_LOG = join(ROOT, 'test/fixtures/header-log-server.mjs')

/** An account made by the operator on the Scale plan, calling the API with its token. */
interface ApiUser {
  api<T = { error?: { code: string; message: string } }>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: T }>
}

async function operatorUser(service: Service, slug: string): Promise<ApiUser> {
  const env = { env: service.env }
  await run(
    process.execPath,
    [
      BURROWD,
      'account',
      'create',
      '--email',
      `${slug}@example.com`,
      '--slug',
      slug,
      '--plan',
      'scale',
    ],
    env,
  )
  const made = await run(
    process.execPath,
    [BURROWD, 'token', 'create', '--account', slug, '--json'],
    env,
  )
  const { token } = JSON.parse(made.stdout) as { token: string }
  const base = `http://127.0.0.1:${service.port}`
  return {
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await res.text()
      return { status: res.status, json: (text === '' ? {} : JSON.parse(text)) as T }
    },
  }
}

interface Made {
  readonly id: string
  readonly url: string
  readonly key: string
}

/** POST to `url` with extra headers; status, headers and parsed body. */
async function call(url: string, headers: Record<string, string>, id = 1) {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(toolCall(id, 'echo', { text: 'hi' })),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text }
}

/** The v2 SDK client calling `echo` with `headers` on every request. */
async function sdkEcho(url: string, headers: Record<string, string>): Promise<string> {
  const client = new Client({ name: 'access-e2e', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: publicFetch,
      requestInit: { headers },
    }),
  )
  try {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'through' } })
    const content = (result as { content: { text: string }[] }).content
    return content.map((c) => c.text).join('')
  } finally {
    await client.close()
  }
}

describe('access modes', () => {
  let service: Service
  let owner: ApiUser
  let stranger: ApiUser
  let local: Child
  let localBase: string
  const clients: Child[] = []

  const make = async (user: ApiUser, name: string, body: Record<string, unknown> = {}) => {
    const made = await user.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name, ...body },
    )
    assert.equal(made.status, 201, JSON.stringify(made.json))
    return { id: made.json.tunnel.id, url: made.json.tunnel.mcp_url, key: made.json.key }
  }
  const connect = async (t: Made) => {
    clients.push(await startClient(service, t.key, ['--upstream', `${localBase}/mcp`]))
  }
  const seenHeaders = async () =>
    (await (await fetch(`${localBase}/seen-headers`)).json()) as Record<string, string>[]

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    owner = await operatorUser(service, 'owner')
    stranger = await operatorUser(service, 'stranger')
    local = startChild(process.execPath, [HEADER_LOG], { env: { ...process.env, PORT: '0' } })
    const [, port] = await local.waitFor(/listening on (\d+)/)
    localBase = `http://127.0.0.1:${port}`
  })

  after(async () => {
    for (const c of clients) await c.stop()
    await local?.stop()
    await service?.close()
  })

  it('makes tunnels oauth by default, answering like a tunnel that does not exist', async () => {
    const online = await make(owner, 'default-online')
    const offline = await make(owner, 'default-offline')
    assert.deepEqual((await owner.api('GET', `/api/tunnels/${online.id}/access`)).json, {
      mode: 'oauth',
      allow_ips: [],
    })
    await connect(online)
    const unknownUrl = online.url.replace('default-online--', 'nobody-here--')
    const answers = await Promise.all(
      [online.url, offline.url, unknownUrl].map((url) => call(url, {})),
    )
    for (const [i, a] of answers.entries()) {
      const url = [online.url, offline.url, unknownUrl][i]!
      assert.equal(a.status, 401)
      assert.equal(a.headers.get('x-burrow-error'), 'unauthorized')
      const metadata = url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp')
      assert.equal(
        a.headers.get('www-authenticate'),
        `Bearer resource_metadata="${metadata}", scope="mcp"`,
      )
      assert.match(a.headers.get('access-control-expose-headers') ?? '', /www-authenticate/)
    }
    // Bodies are the same, word for word: nothing tells online, offline and unknown apart.
    assert.equal(answers[0]!.text, answers[1]!.text)
    assert.equal(answers[1]!.text, answers[2]!.text)
    assert.equal((await seenHeaders()).length, 0, 'nothing reached the local server')
  })

  it('serves protected-resource metadata on tunnel hosts, at both paths', async () => {
    const t = await make(owner, 'meta')
    const origin = t.url.replace(/\/mcp$/, '')
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await publicFetch(`${origin}${path}`)
      assert.equal(res.status, 200)
      const doc = (await res.json()) as { resource: string; authorization_servers: string[] }
      assert.equal(doc.resource, t.url)
      assert.deepEqual(doc.authorization_servers, [`http://localhost:${service.port}`])
    }
    const posted = await publicFetch(`${origin}/.well-known/oauth-protected-resource`, {
      method: 'POST',
    })
    assert.equal(posted.status, 405)
  })

  it('takes the tunnel’s own agent tokens in token mode and strips them before forwarding', async () => {
    const a = await make(owner, 'tok-a', { access: 'token' })
    const b = await make(owner, 'tok-b', { access: 'token' })
    await connect(a)
    await connect(b)
    const created = await owner.api<{ agent_token: { id: string; name: string }; secret: string }>(
      'POST',
      `/api/tunnels/${a.id}/agent-tokens`,
      { name: 'ci agent' },
    )
    assert.equal(created.status, 201)
    assert.match(created.json.secret, /^atk_[A-Za-z0-9_-]{43}$/)
    const listed = await owner.api<{ agent_tokens: Record<string, unknown>[] }>(
      'GET',
      `/api/tunnels/${a.id}/agent-tokens`,
    )
    assert.equal(listed.json.agent_tokens.length, 1)
    assert.equal(listed.json.agent_tokens[0]!.name, 'ci agent')
    assert.equal(JSON.stringify(listed.json).includes(created.json.secret), false)

    const before = (await seenHeaders()).length
    // The agent also claims to be another agent: only the edge names it (Burrow-Agent).
    const text = await sdkEcho(a.url, {
      authorization: `Bearer ${created.json.secret}`,
      'burrow-agent': 'grant_someone_else',
    })
    assert.equal(text, 'through')
    const seen = (await seenHeaders()).slice(before)
    assert.ok(seen.length > 0)
    for (const h of seen) {
      assert.equal(h.authorization, undefined, 'the agent token reached the local server')
      assert.equal(JSON.stringify(h).includes(created.json.secret), false)
      assert.equal(h['burrow-agent'], created.json.agent_token.id)
    }

    // Call history names the agent token that made the call.
    const deadline = Date.now() + 15_000
    let agents: (string | null)[] = []
    while (!agents.some((a) => a !== null) && Date.now() < deadline) {
      const calls = await owner.api<{ calls: { agent: string | null }[] }>(
        'GET',
        `/api/tunnels/${a.id}/calls`,
      )
      agents = calls.json.calls.map((c) => c.agent)
      if (!agents.some((x) => x !== null)) await new Promise((r) => setTimeout(r, 200))
    }
    assert.ok(agents.includes(`ci agent (${created.json.agent_token.id})`), JSON.stringify(agents))

    const refusals = [
      ['none', {}],
      ['wrong', { authorization: `Bearer atk_${'x'.repeat(43)}` }],
      ['malformed', { authorization: 'Bearer not-a-token' }],
      ['basic', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['oversized', { authorization: `Bearer atk_${'y'.repeat(20_000)}` }],
    ] as const
    for (const [what, headers] of refusals) {
      const res = await call(a.url, headers)
      assert.equal(res.status, what === 'oversized' ? 431 : 401, `${what}: ${res.text}`)
      if (res.status === 401) {
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="burrow"/)
        assert.equal((JSON.parse(res.text) as { id: unknown }).id, null)
      }
    }
    // The token of tunnel A is nothing to tunnel B.
    const onB = await call(b.url, { authorization: `Bearer ${created.json.secret}` })
    assert.equal(onB.status, 401)
    assert.match(onB.headers.get('www-authenticate') ?? '', /error="invalid_token"/)

    // Revoked: refused at once.
    const revoked = await owner.api(
      'DELETE',
      `/api/tunnels/${a.id}/agent-tokens/${created.json.agent_token.id}`,
    )
    assert.equal(revoked.status, 204)
    assert.equal(
      (await call(a.url, { authorization: `Bearer ${created.json.secret}` })).status,
      401,
    )
    assert.equal(
      (
        await owner.api(
          'DELETE',
          `/api/tunnels/${a.id}/agent-tokens/${created.json.agent_token.id}`,
        )
      ).status,
      404,
    )
  })

  /** Agent a opens a session on `t`; agent b can neither use nor end it; a ends it. */
  const sessionKeptFromOthers = async (t: Made) => {
    const secret = async (name: string) =>
      (await owner.api<{ secret: string }>('POST', `/api/tunnels/${t.id}/agent-tokens`, { name }))
        .json.secret
    const [a, b] = [await secret('agent a'), await secret('agent b')]
    const send = (method: string, auth: string, body: unknown, session?: string) =>
      publicFetch(t.url, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${auth}`,
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const post = (auth: string, body: unknown, session?: string) =>
      send('POST', auth, body, session)
    const clientInfo = { name: 'e2e', version: '1' }
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo }
    const opened = await post(a, { jsonrpc: '2.0', id: 0, method: 'initialize', params })
    assert.equal(opened.status, 200)
    const session = opened.headers.get('mcp-session-id')!
    assert.ok(session, 'the server opened a session')
    await opened.text()
    await (await post(a, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text()
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    const stolen = await post(b, ping, session)
    assert.equal(stolen.status, 404, 'agent b used agent a’s session id')
    const refusal = (await stolen.json()) as { id: unknown; error: { code: number } }
    assert.equal(refusal.id, 1, 'the refusal carries the refused id')
    const ended = await send('DELETE', b, undefined, session)
    assert.equal(ended.status, 404, 'agent b ended agent a’s session')
    await ended.text()
    const own = await post(a, ping, session)
    assert.equal(own.status, 200)
    await own.text()
    const deleted = await send('DELETE', a, undefined, session)
    assert.ok(deleted.status < 300, `agent a ends its own session (${deleted.status})`)
    await deleted.text()
    const gone = await post(a, ping, session)
    assert.equal(gone.status, 404)
    await gone.text()
  }

  it("keeps one agent token's MCP session from another's (burrow up's own sessions)", async () => {
    const t = await make(owner, 'tok-stdio', { access: 'token' })
    clients.push(
      await startClient(service, t.key, ['--stdio', `${process.execPath} ${EVERYTHING} stdio`]),
    )
    await sessionKeptFromOthers(t)
  })

  it("keeps one agent token's MCP session from another's on a local HTTP server", async () => {
    // The local server cannot tell agents apart: burrow up binds its sessions to the agent.
    const port = await freePort()
    const server = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
    })
    try {
      await server.waitFor(/listening|port/i)
      const t = await make(owner, 'tok-http', { access: 'token' })
      clients.push(
        await startClient(service, t.key, ['--upstream', `http://127.0.0.1:${port}/mcp`]),
      )
      await sessionKeptFromOthers(t)
    } finally {
      await server.stop()
    }
  })

  it('forwards Authorization on public tunnels: it is for the local server then', async () => {
    const t = await make(owner, 'open', { access: 'public' })
    await connect(t)
    const before = (await seenHeaders()).length
    assert.equal(await sdkEcho(t.url, { authorization: 'Bearer for-the-local-server' }), 'through')
    const seen = (await seenHeaders()).slice(before)
    assert.ok(seen.every((h) => h.authorization === 'Bearer for-the-local-server'))
  })

  it('admits callers from an allowlisted address and refuses others, in any mode', async () => {
    const t = await make(owner, 'listed', { access: 'public', allow_ips: ['127.0.0.1'] })
    await connect(t)
    assert.equal(await sdkEcho(t.url, {}), 'through')
    const changed = await owner.api('PUT', `/api/tunnels/${t.id}/access`, {
      allow_ips: ['203.0.113.0/24', '2001:db8::/32'],
    })
    assert.deepEqual(changed.json, {
      mode: 'public',
      allow_ips: ['203.0.113.0/24', '2001:db8::/32'],
    })
    const refused = await postMcp(t.url, toolCall(9, 'echo', { text: 'x' }))
    assert.equal(refused.status, 403)
    assert.equal(refused.headers.get('x-burrow-error'), 'access_denied')
    assert.match(refused.text, /127\.0\.0\.1 is not one of them/)
    const cleared = await owner.api('PUT', `/api/tunnels/${t.id}/access`, { allow_ips: [] })
    assert.equal(cleared.status, 200)
    assert.equal(await sdkEcho(t.url, {}), 'through')
  })

  it('refuses bad access settings and other accounts’ tunnels through the API', async () => {
    const t = await make(owner, 'hostile')
    const bad: [unknown, RegExp][] = [
      [{ access: 'everyone' }, /must be one of oauth, token, public/],
      [{ access: 7 }, /must be one of/],
      [{ allow_ips: ['10.0.0.0/33'] }, /not an IP address or CIDR/],
      [{ allow_ips: ['999.1.1.1'] }, /not an IP address or CIDR/],
      [{ allow_ips: ['10.0.0.1/8/8'] }, /not an IP address or CIDR/],
      [{ allow_ips: [{}] }, /not an IP address or CIDR/],
      [{ allow_ips: 'x'.repeat(5_000) }, /not an IP address or CIDR/],
      [{ allow_ips: Array.from({ length: 65 }, (_, i) => `10.0.0.${i}`) }, /at most 64/],
      [{ allow_ips: 5 }, /must be an array of CIDRs/],
    ]
    for (const [body, message] of bad) {
      const res = await owner.api('PUT', `/api/tunnels/${t.id}/access`, body)
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
      assert.equal(res.json.error?.code, 'invalid')
      assert.match(res.json.error?.message ?? '', message)
    }
    // Creating with a bad mode creates nothing.
    const count = async () =>
      (await owner.api<{ tunnels: unknown[] }>('GET', '/api/tunnels')).json.tunnels.length
    const had = await count()
    assert.equal((await owner.api('POST', '/api/tunnels', { access: 'open' })).status, 400)
    assert.equal(await count(), had)

    for (const [method, path, body] of [
      ['GET', `/api/tunnels/${t.id}/access`, undefined],
      ['PUT', `/api/tunnels/${t.id}/access`, { access: 'public' }],
      ['GET', `/api/tunnels/${t.id}/agent-tokens`, undefined],
      ['POST', `/api/tunnels/${t.id}/agent-tokens`, { name: 'x' }],
      ['GET', `/api/tunnels/${t.id}/agents`, undefined],
    ] as const) {
      const res = await stranger.api(method, path, body)
      assert.equal(res.status, 404, `${method} ${path}`)
    }
    assert.equal(
      (await owner.api<{ mode: string }>('GET', `/api/tunnels/${t.id}/access`)).json.mode,
      'oauth',
    )

    for (const name of ['', ' ', 'x'.repeat(101), 'tab\there', 42]) {
      const res = await owner.api('POST', `/api/tunnels/${t.id}/agent-tokens`, { name })
      assert.equal(res.status, 400, JSON.stringify(name))
    }
    // Concurrent creations never pass the per-tunnel cap by much, and each secret is distinct.
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        owner.api<{ secret: string }>('POST', `/api/tunnels/${t.id}/agent-tokens`, {
          name: `n${i}`,
        }),
      ),
    )
    assert.ok(made.every((m) => m.status === 201))
    assert.equal(new Set(made.map((m) => m.json.secret)).size, 12)
  })

  it('rate-limits each agent on its own when the policy says per agent', async () => {
    const t = await make(owner, 'per-agent', { access: 'token' })
    await connect(t)
    const policy = await owner.api('PUT', `/api/tunnels/${t.id}/policy`, {
      rate_limits: [{ tool: 'echo', limit: 1, per_seconds: 3600, per: 'agent' }],
    })
    assert.equal(policy.status, 200, JSON.stringify(policy.json))
    const secrets: string[] = []
    for (const name of ['first agent', 'second agent']) {
      const made = await owner.api<{ secret: string }>(
        'POST',
        `/api/tunnels/${t.id}/agent-tokens`,
        {
          name,
        },
      )
      secrets.push(made.json.secret)
    }
    const as = (secret: string) => ({ authorization: `Bearer ${secret}` })
    assert.equal((await call(t.url, as(secrets[0]!), 1)).status, 200)
    const limited = await call(t.url, as(secrets[0]!), 2)
    assert.equal(limited.status, 429)
    assert.equal(limited.headers.get('x-burrow-error'), 'rate_limited')
    assert.match(limited.text, /1 calls per 3600 s to echo by each agent; retry in \d+ s/)
    // The other agent has its own budget.
    assert.equal((await call(t.url, as(secrets[1]!), 3)).status, 200)
  })
})
