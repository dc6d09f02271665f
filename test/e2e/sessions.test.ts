// The per-tunnel session cap end to end (Free: 3): real burrowd, real `burrow up`, the counting
// MCP server, and both raw requests and the official SDK client as agents.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectAgent } from '../helpers/agent-scenario.js'
import { type Child } from '../helpers/child.js'
import {
  deleteSession,
  initializeMessage,
  openSession,
  postMcp,
  startCountingServer,
  toolCall,
  type Answer,
  type CountingServer,
} from '../helpers/quota-stack.js'
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

  it('refuses the 4th session, keeps the first three working, and frees a place on DELETE', async () => {
    const sessions = [await openSession(url), await openSession(url), await openSession(url)]
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
    assertSessionLimit(await postMcp(url, initializeMessage(5)), 5)
    await transport.terminateSession()
    await client.close()
    for (const session of [sessions[0]!, sessions[2]!]) {
      assert.equal(await deleteSession(url, session), 200)
    }
  })

  it('frees the places of sessions the local server no longer knows (404)', async () => {
    const sessions = [await openSession(url), await openSession(url), await openSession(url)]
    assertSessionLimit(await postMcp(url, initializeMessage(6)), 6)
    await server.forgetSessions()
    for (const session of sessions) {
      const call = await postMcp(url, toolCall(7, 'echo'), session)
      assert.equal(call.status, 404, 'the local server answers for its own sessions')
    }
    const again = [await openSession(url), await openSession(url), await openSession(url)]
    assert.equal(new Set(again).size, 3)
    assertSessionLimit(await postMcp(url, initializeMessage(8)), 8)
    for (const session of again) assert.equal(await deleteSession(url, session), 200)
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

describe('idle sessions stop counting (BURROW_SESSION_IDLE_SECS=3)', () => {
  let server: CountingServer
  let service: Service
  let cli: Child
  let url: string

  before(async () => {
    ;({ server, service, cli, url } = await startStack({ BURROW_SESSION_IDLE_SECS: '3' }))
  })

  after(async () => {
    await cli?.stop()
    await server?.child.stop()
    await service?.close()
  })

  it('admits a new session once the others have been idle for the timeout', async () => {
    for (let i = 0; i < 3; i++) await openSession(url)
    assertSessionLimit(await postMcp(url, initializeMessage('early')), 'early')
    // Poll (no fixed sleep): some initialize within a generous deadline must be admitted.
    const deadline = Date.now() + 30_000
    let admitted: string | null = null
    while (admitted === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      const answer = await postMcp(url, initializeMessage('later'))
      if (answer.status === 200) admitted = answer.headers.get('mcp-session-id')
      else assertSessionLimit(answer, 'later')
    }
    assert.ok(admitted, 'no place was freed by the idle timeout')
    assert.equal((await server.counts()).sessions, 4, 'idle sessions are not killed upstream')
  })
})
