// The per-tunnel session cap end to end (Free: 3): real burrowd, real `burrow up`, the counting
// MCP server, and both raw requests and the official SDK client as agents. The cap counts
// sessions in use (a request being answered or a GET stream open); an idle session gives its
// place to a new one (docs/decisions.md#sessions-in-use).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectAgent } from '../helpers/agent-scenario.js'
import { type Child } from '../helpers/child.js'
import {
  deleteSession,
  initializeMessage,
  openSession,
  openStream,
  postMcp,
  startCountingServer,
  toolCall,
  type Answer,
  type CountingServer,
  type OpenStream,
} from '../helpers/quota-stack.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startClient, startService, type Service } from '../helpers/stack.js'

/** Assert `answer` is the session_limit refusal of initialize `id` on the Free plan. */
function assertSessionLimit(answer: Answer, id: string | number): void {
  assert.equal(answer.status, 429, answer.text)
  assert.equal(answer.headers.get('x-burrow-error'), 'session_limit')
  assert.equal(answer.headers.get('mcp-session-id'), null)
  const body = answer.json as {
    jsonrpc: string
    id: unknown
    error: { code: number; message: string; data: Record<string, unknown> }
  }
  assert.equal(body.jsonrpc, '2.0')
  assert.equal(body.id, id)
  assert.equal(body.error.code, -32000)
  assert.equal(body.error.message, 'session limit reached for this tunnel')
  assert.equal(body.error.data.policy_code, 'session_limit')
  assert.equal(body.error.data.http_status, 429)
  assert.match(String(body.error.data.reason), /already has 3 open MCP sessions/)
  assert.match(String(body.error.data.reason), /Free plan allows \(3\)/)
  assert.match(String(body.error.data.reason), /each is in use/)
}

/** Open a session and hold it in use with its GET stream. */
async function sessionInUse(url: string): Promise<{ id: string; stream: OpenStream }> {
  const id = await openSession(url)
  const stream = await openStream(url, id)
  assert.equal(stream.status, 200, 'the GET stream opens')
  return { id, stream }
}

/**
 * An initialize the counting server answers as an SSE stream whose result waits for
 * `finishInitializes`: the session id from its head, and its body as the agent reads it.
 */
async function slowInitialize(url: string): Promise<{ id: string; body: Promise<string> }> {
  const res = await publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'slow-initialize', version: '1.0.0' },
      },
    }),
  })
  const id = res.headers.get('mcp-session-id')
  assert.equal(res.status, 200)
  assert.ok(id, 'the head carries the session id')
  return { id, body: res.text() }
}

/** Poll (no fixed sleep) until an initialize is admitted; returns its session id. */
async function admittedSoon(url: string): Promise<string> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const answer = await postMcp(url, initializeMessage('later'))
    const id = answer.headers.get('mcp-session-id')
    if (answer.status === 200 && id) return id
    assertSessionLimit(answer, 'later')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('no place was freed')
}

/** A service, the counting server and a client on one Free tunnel. */
async function startStack(env: NodeJS.ProcessEnv = {}) {
  const server = await startCountingServer()
  const service = await startService({ BURROW_LOG: 'info', ...env })
  const tunnel = await service.tunnel('sessions')
  const cli = await startClient(service, tunnel.key, ['--upstream', server.url])
  return { server, service, cli, url: tunnel.url }
}

describe('concurrent sessions per tunnel (Free: 3)', () => {
  let server: CountingServer
  let service: Service
  let cli: Child
  let url: string

  before(async () => {
    ;({ server, service, cli, url } = await startStack())
  })

  after(async () => {
    await cli?.stop()
    await server?.child.stop()
    await service?.close()
  })

  it('refuses the 4th session while three are in use, keeps them working, frees one on DELETE', async () => {
    const held = [await sessionInUse(url), await sessionInUse(url), await sessionInUse(url)]
    const sessions = held.map((h) => h.id)
    const initializes = (await server.counts()).initializes

    assertSessionLimit(await postMcp(url, initializeMessage(4)), 4)
    assertSessionLimit(await postMcp(url, initializeMessage('fourth')), 'fourth')
    await assert.rejects(
      connectAgent(url),
      (err: unknown) => err instanceof StreamableHTTPError && err.code === 429,
      'the official client is refused too',
    )
    assert.equal(
      (await server.counts()).initializes,
      initializes,
      'a refused initialize was forwarded',
    )

    for (const [i, session] of sessions.entries()) {
      const call = await postMcp(url, toolCall(i, 'echo', { message: 'still here' }), session)
      assert.equal(call.status, 200, `session ${i} stopped working: ${call.text}`)
    }

    assert.equal(await deleteSession(url, sessions[1]!), 200)
    const { client, transport } = await connectAgent(url)
    assert.ok(transport.sessionId, 'the freed place went to a new session')
    assert.equal((await client.listTools()).tools.length, 4)
    const fourth = await openStream(url, transport.sessionId)
    assertSessionLimit(await postMcp(url, initializeMessage(5)), 5)
    fourth.close()
    await transport.terminateSession()
    await client.close()
    for (const session of [sessions[0]!, sessions[2]!]) {
      assert.equal(await deleteSession(url, session), 200)
    }
  })

  it('frees the places of sessions the local server no longer knows (404)', async () => {
    const held = [await sessionInUse(url), await sessionInUse(url), await sessionInUse(url)]
    assertSessionLimit(await postMcp(url, initializeMessage(6)), 6)
    await server.forgetSessions()
    for (const { id } of held) {
      const call = await postMcp(url, toolCall(7, 'echo'), id)
      assert.equal(call.status, 404, 'the local server answers for its own sessions')
    }
    const again = [await sessionInUse(url), await sessionInUse(url), await sessionInUse(url)]
    assert.equal(new Set(again.map((h) => h.id)).size, 3)
    assertSessionLimit(await postMcp(url, initializeMessage(8)), 8)
    for (const { id } of again) assert.equal(await deleteSession(url, id), 200)
  })

  it('releases the place of an initialize that opened no session', async () => {
    // Initializes the local server answers without a session (here: 400 for missing params)
    // must not hold places: four of them, then the cap still admits three real sessions.
    for (let i = 0; i < 4; i++) {
      const answer = await postMcp(url, { jsonrpc: '2.0', id: i, method: 'initialize' })
      assert.equal(answer.status, 400, answer.text)
    }
    const sessions = [await openSession(url), await openSession(url), await openSession(url)]
    for (const session of sessions) assert.equal(await deleteSession(url, session), 200)
  })
})

/** Where the session places live: in burrowd, and in Redis when a test Redis is given. */
const BACKENDS: readonly { readonly name: string; readonly env: NodeJS.ProcessEnv }[] = [
  { name: 'in process', env: {} },
  ...(process.env.TEST_REDIS_URL
    ? [{ name: 'Redis', env: { BURROW_REDIS_URL: process.env.TEST_REDIS_URL } }]
    : []),
]

for (const backend of BACKENDS)
  describe(`sessions not in use give their place (Free: 3, ${backend.name})`, () => {
    let server: CountingServer
    let service: Service
    let cli: Child
    let url: string

    before(async () => {
      ;({ server, service, cli, url } = await startStack(backend.env))
    })

    after(async () => {
      await cli?.stop()
      await server?.child.stop()
      await service?.close()
    })

    it('admits new sessions past three idle ones, which keep working', async () => {
      const idle = [await openSession(url), await openSession(url), await openSession(url)]
      const fourth = await openSession(url)
      const fifth = await openSession(url)
      assert.equal(new Set([...idle, fourth, fifth]).size, 5)
      for (const session of [...idle, fourth, fifth]) {
        const call = await postMcp(url, toolCall(1, 'echo', { message: 'hi' }), session)
        assert.equal(call.status, 200, 'an idle session is never closed')
      }
      assert.equal((await server.counts()).sessions, 5)
      for (const session of [...idle, fourth, fifth]) await deleteSession(url, session)
    })

    it('frees the place of a session whose GET stream closed', async () => {
      const held = [await sessionInUse(url), await sessionInUse(url), await sessionInUse(url)]
      assertSessionLimit(await postMcp(url, initializeMessage('early')), 'early')
      held[1]!.stream.close()
      const admitted = await admittedSoon(url)
      const stream = await openStream(url, admitted)
      assertSessionLimit(await postMcp(url, initializeMessage('again')), 'again')
      stream.close()
      for (const h of held) {
        h.stream.close()
        await deleteSession(url, h.id)
      }
      await deleteSession(url, admitted)
    })

    it('holds a session in use while its initialize is still being answered (SSE)', async () => {
      // Opened idle when the head arrived, the first such session gave its place to the next
      // initialize, and its agent's first request after the answer was refused.
      const slow = [await slowInitialize(url), await slowInitialize(url), await slowInitialize(url)]
      assertSessionLimit(await postMcp(url, initializeMessage('meanwhile')), 'meanwhile')
      await server.finishInitializes()
      for (const { body } of slow) assert.match(await body, /"serverInfo"/)
      for (const { id } of slow) {
        const call = await postMcp(url, toolCall(1, 'echo', { message: 'hi' }), id)
        assert.equal(call.status, 200, call.text)
      }
      const admitted = await admittedSoon(url)
      for (const { id } of slow) await deleteSession(url, id)
      await deleteSession(url, admitted)
    })

    it('holds a session while any of its streams is open; made-up ids hold nothing', async () => {
      const made = await Promise.all(
        Array.from({ length: 5 }, (_, i) => openStream(url, `made-up-${i}`)),
      )
      // Each took a place while it was asked (or found every place in use), and holds none once
      // the local server said it does not know it.
      assert.ok(
        made.every((m) => m.status === 404 || m.status === 429),
        JSON.stringify(made.map((m) => m.status)),
      )
      const a = await sessionInUse(url)
      const b = await sessionInUse(url)
      const c = await openSession(url)
      // Ten concurrent streams of one session, nine of them closed again: it is still in use.
      const many = await Promise.all(Array.from({ length: 10 }, () => openStream(url, c)))
      for (const stream of many.slice(1)) stream.close()
      assertSessionLimit(await postMcp(url, initializeMessage('many')), 'many')
      many[0]!.close()
      const admitted = await admittedSoon(url)
      for (const h of [a, b]) {
        h.stream.close()
        await deleteSession(url, h.id)
      }
      await deleteSession(url, c)
      await deleteSession(url, admitted)
    })

    it('gives a displaced session a place back while one is idle, and refuses it once all are in use', async () => {
      // Five sessions opened one after another: the 4th and 5th took the places of the first two
      // while those were idle; the local server still knows all five. Before, all five could
      // then be used at once on a plan of three.
      const ids = []
      for (let i = 0; i < 5; i++) ids.push(await openSession(url))
      const streams = []
      for (const id of ids.slice(0, 3)) {
        const stream = await openStream(url, id)
        assert.equal(stream.status, 200, 'an idle session gave its place')
        streams.push(stream)
      }
      for (const id of ids.slice(3)) {
        assert.equal((await openStream(url, id)).status, 429)
        const call = await postMcp(url, { jsonrpc: '2.0', id: 'late', method: 'tools/list' }, id)
        assert.equal(call.status, 429, call.text)
        assert.equal(call.headers.get('x-burrow-error'), 'session_limit')
        const body = call.json as { id: unknown; error: { data: { reason: string } } }
        assert.equal(body.id, 'late')
        assert.match(body.error.data.reason, /another took its place/)
      }
      assertSessionLimit(await postMcp(url, initializeMessage('sixth')), 'sixth')
      for (const stream of streams) stream.close()
      const admitted = await admittedSoon(url)
      for (const id of [...ids, admitted]) await deleteSession(url, id)
    })

    it('serves a 4th and 5th SDK client after three that closed without DELETE', async () => {
      for (let i = 0; i < 3; i++) {
        const { client } = await connectAgent(url)
        assert.equal((await client.listTools()).tools.length, 4)
        await client.close()
      }
      for (let i = 0; i < 2; i++) {
        const sessionId = await admittedSoon(url)
        const call = await postMcp(url, toolCall(9, 'echo', { message: 'late' }), sessionId)
        assert.equal(call.status, 200, call.text)
      }
    })
  })
