/**
 * Grants the authorization server revokes by itself end what their tokens opened at once, as the
 * owner's disconnect does: an authorization code presented again (stolen), and a client revoking
 * its own token (RFC 7009). Real burrowd, real `burrow up`, a local MCP server whose tool call
 * stays open until the test releases it, and the official v1 SDK as the agent. Before, a call
 * in flight went on to its end, and a GET stream for up to 30 s.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'

/** A stateless MCP server with one tool, `hold`, whose calls are answered only when released. */
function heldCallServer(): {
  server: Server
  held: ServerResponse[]
  arrived: () => Promise<void>
} {
  const held: ServerResponse[] = []
  let wake: () => void = () => {}
  const answer = (res: ServerResponse, id: unknown, result: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result }))
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end()
      const msg = JSON.parse(text) as { id?: unknown; method: string }
      if (msg.id === undefined) return void res.writeHead(202).end()
      if (msg.method === 'initialize') {
        return answer(res, msg.id, {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'held', version: '1.0.0' },
        })
      }
      if (msg.method === 'tools/list') {
        return answer(res, msg.id, { tools: [{ name: 'hold', inputSchema: { type: 'object' } }] })
      }
      held.push(res)
      wake()
    })
  })
  const arrived = () =>
    new Promise<void>((resolve) => {
      wake = resolve
    })
  return { server, held, arrived }
}

describe('grants the authorization server revokes', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let client: Child
  let mcpUrl: string
  const upstream = heldCallServer()

  const tokenEndpoint = (path: string, fields: Record<string, string>) =>
    fetch(`${owner.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    })

  /** The owner approves a new client: its code, and the tokens the code bought. */
  async function grant() {
    const registered = await fetch(`${owner.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'held agent', redirect_uris: [REDIRECT] }),
    })
    const { client_id } = (await registered.json()) as { client_id: string }
    const verifier = randomBytes(32).toString('base64url')
    const approved = await owner.form('/oauth/authorize', {
      client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
      decision: 'approve',
    })
    const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? ''
    const redemption = {
      grant_type: 'authorization_code',
      code,
      client_id,
      code_verifier: verifier,
    }
    const res = await tokenEndpoint('/oauth/token', redemption)
    assert.equal(res.status, 200)
    const tokens = (await res.json()) as { access_token: string; refresh_token: string }
    return { redemption, ...tokens }
  }

  /** The v1 SDK connected with `accessToken`, and one `hold` call it has in flight. */
  async function callInFlight(accessToken: string) {
    const agent = new Client({ name: 'held-agent', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      fetch: publicFetch,
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    })
    await agent.connect(transport)
    const arrived = upstream.arrived()
    // Longer than the suite: the SDK's own request timeout must not be what ends it.
    const call = agent.callTool({ name: 'hold', arguments: {} }, undefined, { timeout: 600_000 })
    call.catch(() => {})
    await arrived
    return { agent, call }
  }

  before(async () => {
    await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve))
    const port = (upstream.server.address() as AddressInfo).port
    service = await startService({ BURROW_LOG: 'info' })
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'heldcalls')
    const made = await owner.api<{ tunnel: { mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'held' },
    )
    assert.equal(made.status, 201)
    mcpUrl = made.json.tunnel.mcp_url
    client = await startClient(service, made.json.key, [
      '--upstream',
      `http://127.0.0.1:${port}/mcp`,
    ])
  })

  after(async () => {
    for (const res of upstream.held) if (!res.writableEnded) res.end()
    await client?.stop()
    await service?.close()
    upstream.server.close()
  })

  it('ends the calls of a grant whose code came back (stolen) at once', async () => {
    const tokens = await grant()
    const { agent, call } = await callInFlight(tokens.access_token)
    const replay = await tokenEndpoint('/oauth/token', tokens.redemption)
    assert.equal(replay.status, 400)
    assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant')
    await assert.rejects(call)
    await assert.rejects(agent.listTools())
    await agent.close()
  })

  it('answers a call in flight whose grant was revoked with the envelope and its id', async () => {
    const tokens = await grant()
    const arrived = upstream.arrived()
    const pending = publicFetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.access_token}`,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: { name: 'hold', arguments: {} },
      }),
    })
    await arrived
    const revoked = await tokenEndpoint('/oauth/revoke', { token: tokens.refresh_token })
    assert.equal(revoked.status, 200)
    // Before, the connection was reset: the agent's SDK could not tell which call failed, or why.
    const res = await pending
    assert.equal(res.status, 403)
    assert.equal(res.headers.get('x-burrow-error'), 'access_denied')
    const body = (await res.json()) as { id: unknown; error: { message: string } }
    assert.equal(body.id, 42)
    assert.match(body.error.message, /access revoked/)
  })

  it('ends the calls of a grant its client revoked (RFC 7009) at once', async () => {
    const tokens = await grant()
    const { agent, call } = await callInFlight(tokens.access_token)
    const revoked = await tokenEndpoint('/oauth/revoke', { token: tokens.refresh_token })
    assert.equal(revoked.status, 200)
    await assert.rejects(call)
    await assert.rejects(agent.listTools())
    await agent.close()
  })
})
