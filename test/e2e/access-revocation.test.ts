/**
 * Taking an agent's access away ends what it already has open, not only its next request: real
 * burrowd and `burrow up` in front of the counting MCP server, agents holding GET streams. An
 * agent token deleted, an OAuth agent disconnected, a public tunnel turned to `oauth`: each ends
 * the streams the gate would now refuse, and only those, and the sessions strangers held are the
 * owner's agents' again.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  initializeMessage,
  startCountingServer,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}
const REDIRECT = 'http://127.0.0.1:9/callback'

/** An agent's MCP session with its GET stream open, and when the edge ended that stream. */
interface Agent {
  readonly session: string
  readonly ended: Promise<void>
  /** Whether the stream has ended (read after a step that should or should not end it). */
  readonly isEnded: () => boolean
  close(): void
}

async function connect(url: string, headers: Record<string, string>): Promise<Agent> {
  const init = await publicFetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(initializeMessage(1)),
  })
  assert.equal(init.status, 200, await init.text())
  const session = init.headers.get('mcp-session-id') ?? ''
  const abort = new AbortController()
  const res = await publicFetch(url, {
    method: 'GET',
    headers: { ...HEADERS, ...headers, 'mcp-session-id': session },
    signal: abort.signal,
  })
  assert.equal(res.status, 200)
  let ended = false
  const done = (async () => {
    try {
      for await (const chunk of res.body ?? []) void chunk
    } catch {
      // ended by the edge, or closed by the test
    }
    ended = true
  })()
  return { session, ended: done, isEnded: () => ended, close: () => abort.abort() }
}

/** A POST of `tools/list` in `agent`'s session: the status. */
async function list(url: string, agent: Agent, headers: Record<string, string>): Promise<number> {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...headers, 'mcp-session-id': agent.session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  })
  await res.arrayBuffer()
  return res.status
}

/** An OAuth access token for `resource`: registration, the owner's consent, the code redeemed. */
async function oauthToken(owner: WebUser, resource: string): Promise<string> {
  const registered = await fetch(`${owner.base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'revoked agent', redirect_uris: [REDIRECT] }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const verifier = randomBytes(32).toString('base64url')
  const fields = {
    client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    resource,
  }
  assert.equal(
    (await owner.page(`/oauth/authorize?${new URLSearchParams(fields).toString()}`)).status,
    200,
  )
  const approved = await owner.form('/oauth/authorize', { ...fields, decision: 'approve' })
  const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? ''
  const token = await fetch(`${owner.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    }),
  })
  const { access_token } = (await token.json()) as { access_token: string }
  assert.ok(access_token, 'an access token')
  return access_token
}

describe('access taken away ends what is open', { timeout: 120_000 }, () => {
  let service: Service
  let counting: CountingServer
  let owner: WebUser
  const clients: Child[] = []

  const tunnel = async (name: string, access: string) => {
    const made = await owner.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name, access },
    )
    assert.equal(made.status, 201, JSON.stringify(made.json))
    clients.push(await startClient(service, made.json.key, ['--upstream', counting.url]))
    return { id: made.json.tunnel.id, url: made.json.tunnel.mcp_url }
  }

  /** Delete a tunnel once its test is done (the Free plan holds few). */
  const drop = async (id: string) => {
    assert.equal((await owner.api('DELETE', `/api/tunnels/${id}`)).status, 204)
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    counting = await startCountingServer()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'revoker')
  })

  after(async () => {
    for (const c of clients) await c.stop()
    await counting?.child.stop()
    await service?.close()
  })

  it("ends a deleted agent token's streams, and no other's", async () => {
    const t = await tunnel('tokens', 'token')
    const make = async (name: string) => {
      const made = await owner.api<{ agent_token: { id: string }; secret: string }>(
        'POST',
        `/api/tunnels/${t.id}/agent-tokens`,
        { name },
      )
      assert.equal(made.status, 201)
      return { id: made.json.agent_token.id, auth: { authorization: `Bearer ${made.json.secret}` } }
    }
    const [gone, kept] = [await make('gone'), await make('kept')]
    const goneAgent = await connect(t.url, gone.auth)
    const keptAgent = await connect(t.url, kept.auth)
    const deleted = await owner.api('DELETE', `/api/tunnels/${t.id}/agent-tokens/${gone.id}`)
    assert.equal(deleted.status, 204)
    await goneAgent.ended
    assert.equal(await list(t.url, goneAgent, gone.auth), 401)
    assert.equal(await list(t.url, keptAgent, kept.auth), 200)
    assert.equal(keptAgent.isEnded(), false, 'the other token’s stream was ended')
    keptAgent.close()
    await drop(t.id)
  })

  it('ends an OAuth agent’s stream when its owner disconnects it', async () => {
    const t = await tunnel('oauth', 'oauth')
    const auth = { authorization: `Bearer ${await oauthToken(owner, t.url)}` }
    const agent = await connect(t.url, auth)
    const agents = await owner.api<{ agents: { id: string }[] }>(
      'GET',
      `/api/tunnels/${t.id}/agents`,
    )
    assert.equal(agents.json.agents.length, 1)
    const gone = await owner.api(
      'DELETE',
      `/api/tunnels/${t.id}/agents/${agents.json.agents[0]!.id}`,
    )
    assert.equal(gone.status, 204)
    await agent.ended
    assert.equal(await list(t.url, agent, auth), 401)
    await drop(t.id)
  })

  it('ends strangers’ streams when a public tunnel turns to oauth, and its sessions are the owner’s again', async () => {
    const t = await tunnel('opened', 'public')
    // Strangers take every session the Free plan allows, each holding its GET stream.
    const strangers: Agent[] = []
    for (let i = 0; i < 3; i++) strangers.push(await connect(t.url, {}))
    const set = await owner.api('PUT', `/api/tunnels/${t.id}/access`, { mode: 'oauth' })
    assert.equal(set.status, 200, JSON.stringify(set.json))
    await Promise.all(strangers.map((s) => s.ended))
    const auth = { authorization: `Bearer ${await oauthToken(owner, t.url)}` }
    const mine = await connect(t.url, auth)
    assert.equal(await list(t.url, mine, auth), 200)
    mine.close()
  })
})
