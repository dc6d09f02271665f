/**
 * The front's 2026-07-28 side on the wire, over the tiny slow-stdio-server fixture (a 2025 stdio
 * server): discovery, sessionless calls with progress, caching hints, the input_required bridge
 * for the child's sampling request, subscriptions/listen, and the 400/404 answers of the transport.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { captureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'
import {
  answerOf,
  messagesOf,
  modernMeta as meta,
  post,
  sendModern as send,
  SseReader,
} from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'

const slowServer = { command: process.execPath, args: [fixturePath('slow-stdio-server.mjs')] }
const MODERN = '2026-07-28'

after(closeAllFronts)

describe('McpFront for 2026-07-28 agents', { timeout: 30_000 }, () => {
  let served: ServedFront

  before(async () => {
    served = await serveStdioFront({ ...slowServer, front: { keepAliveMs: 1_000 } })
  })
  after(() => served.close())

  it('answers server/discover from the child handshake, with caching hints', async () => {
    const res = await send(served.url, 'd', 'server/discover')
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('mcp-session-id'), null)
    const { result } = (await res.json()) as { result: Record<string, unknown> }
    assert.deepEqual(result.supportedVersions, [MODERN])
    assert.equal(result.resultType, 'complete')
    assert.equal(result.ttlMs, 0)
    assert.equal(result.cacheScope, 'private')
    assert.deepEqual(result.capabilities, { tools: { listChanged: true }, logging: {} })
    const info = (result._meta as Record<string, { name: string }>)[
      'io.modelcontextprotocol/serverInfo'
    ]
    assert.equal(info?.name, 'slow-stdio-server')
  })

  it('lists and calls without a session, progress on the call stream', async () => {
    const list = (await answerOf(await send(served.url, 1, 'tools/list'))) as {
      result: { tools: unknown[]; ttlMs: number; resultType: string }
    }
    assert.equal(list.result.tools.length, 6)
    assert.equal(list.result.ttlMs, 0)
    assert.equal(list.result.resultType, 'complete')
    const params = {
      name: 'slow',
      arguments: { ms: 200, steps: 2 },
      _meta: { ...meta(), progressToken: 'tok' },
    }
    const res = await send(served.url, 2, 'tools/call', params)
    assert.equal(res.headers.get('content-type'), 'text/event-stream')
    const messages = messagesOf(await new SseReader(res).rest())
    const progress = messages.filter((m) => m.method === 'notifications/progress')
    assert.equal(progress.length, 2)
    assert.equal((progress[0]!.params as { progressToken: string }).progressToken, 'tok')
    const answer = messages.at(-1) as { id: number; result: { resultType: string } }
    assert.equal(answer.id, 2)
    assert.equal(answer.result.resultType, 'complete')
  })

  it('bridges the child sampling request into input_required and back', async () => {
    const sampling = meta({ sampling: {} })
    const first = (await answerOf(
      await send(served.url, 10, 'tools/call', { name: 'ask', arguments: {}, _meta: sampling }),
    )) as { id: number; result: Record<string, unknown> }
    assert.equal(first.id, 10)
    assert.equal(first.result.resultType, 'input_required')
    const requests = first.result.inputRequests as Record<string, { method: string }>
    const [key] = Object.keys(requests)
    assert.equal(requests[key!]!.method, 'sampling/createMessage')
    const state = first.result.requestState
    assert.equal(typeof state, 'string')
    const reply = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }
    const retryParams = {
      name: 'ask',
      arguments: {},
      _meta: sampling,
      inputResponses: { [key!]: reply },
      requestState: state,
    }
    const second = (await answerOf(await send(served.url, 11, 'tools/call', retryParams))) as {
      id: number
      result: { content: { text: string }[]; resultType: string }
    }
    assert.equal(second.id, 11)
    assert.equal(second.result.resultType, 'complete')
    assert.deepEqual(JSON.parse(second.result.content[0]!.text), reply)
    // The state was used up.
    const again = await send(served.url, 12, 'tools/call', retryParams)
    assert.equal(again.status, 400)
    assert.equal(((await again.json()) as { error: { code: number } }).error.code, -32602)
  })

  it('lets only the agent a requestState was issued to resume the call (Burrow-Agent)', async () => {
    const sampling = meta({ sampling: {} })
    const ask = { name: 'ask', arguments: {}, _meta: sampling }
    const first = (await answerOf(
      await send(served.url, 40, 'tools/call', ask, { 'burrow-agent': 'agt_a' }),
    )) as { result: { requestState: string; inputRequests: Record<string, unknown> } }
    const [key] = Object.keys(first.result.inputRequests)
    const reply = { role: 'assistant', content: { type: 'text', text: 'Lyon' }, model: 'm' }
    const retry = {
      ...ask,
      inputResponses: { [key!]: reply },
      requestState: first.result.requestState,
    }
    const stranger = await send(served.url, 41, 'tools/call', retry, { 'burrow-agent': 'agt_b' })
    assert.equal(stranger.status, 400, 'another agent holding the state gets nothing')
    assert.equal(((await stranger.json()) as { error: { code: number } }).error.code, -32602)
    const public_ = await send(served.url, 42, 'tools/call', retry)
    assert.equal(public_.status, 400, 'nor a caller naming no agent')
    await public_.body?.cancel()
    const own = (await answerOf(
      await send(served.url, 43, 'tools/call', retry, { 'burrow-agent': 'agt_a' }),
    )) as { result: { content: { text: string }[]; resultType: string } }
    assert.equal(own.result.resultType, 'complete', 'the call waited on for its own agent')
    assert.deepEqual(JSON.parse(own.result.content[0]!.text), reply)
  })

  it('refuses a question while calls of two agents (told apart by Burrow-Agent) are in flight', async () => {
    const logger = captureLogger()
    const own = await serveStdioFront({ ...slowServer, logger })
    const sampling = meta({ sampling: {} })
    const ask = { name: 'ask', arguments: { delayMs: 1_500 }, _meta: sampling }
    const asking = send(own.url, 30, 'tools/call', ask, { 'burrow-agent': 'agt_x' })
    await logger.waitFor(/\] ask waits 1500$/)
    const slow = { name: 'slow', arguments: { ms: 3_000 }, _meta: sampling }
    const sleeping = send(own.url, 31, 'tools/call', slow, { 'burrow-agent': 'agt_y' })
    const asked = (await answerOf(await asking)) as { result: Record<string, unknown> }
    assert.equal(
      asked.result.resultType,
      'complete',
      'no input_required: the question went nowhere',
    )
    assert.match(JSON.stringify(asked.result), /calls of several clients are in flight/)
    const slept = (await answerOf(await sleeping)) as {
      id: number
      result: Record<string, unknown>
    }
    assert.equal(slept.id, 31)
    assert.equal(slept.result.resultType, 'complete', "agt_y never saw agt_x's question")
    await own.close()
  })

  it('refuses to bridge for an agent that did not declare the capability', async () => {
    const answer = (await answerOf(
      await send(served.url, 20, 'tools/call', { name: 'ask', arguments: {} }),
    )) as { result: { content: { text: string }[] } }
    assert.match(answer.result.content[0]!.text, /sampling/)
  })

  it('streams list_changed to subscriptions/listen', async () => {
    const controller = new AbortController()
    const filter = { notifications: { toolsListChanged: true, promptsListChanged: true } }
    const res = await send(served.url, 'L', 'subscriptions/listen', filter, {}, controller.signal)
    assert.equal(res.headers.get('content-type'), 'text/event-stream')
    const reader = new SseReader(res)
    const ack = JSON.parse((await reader.next())!.data) as {
      method: string
      params: Record<string, unknown>
    }
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged')
    assert.deepEqual(ack.params.notifications, { toolsListChanged: true })
    assert.deepEqual(ack.params._meta, { 'io.modelcontextprotocol/subscriptionId': 'L' })
    await answerOf(await send(served.url, 30, 'tools/call', { name: 'announce', arguments: {} }))
    const changed = JSON.parse((await reader.next())!.data) as { method: string; params: unknown }
    assert.equal(changed.method, 'notifications/tools/list_changed')
    assert.deepEqual(changed.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } })
    controller.abort()
  })

  it('answers header mismatches, bad metadata and removed methods as the transport says', async () => {
    const url = served.url
    const cases: [Promise<Response>, number, number][] = [
      [send(url, 1, 'tools/list', {}, { 'mcp-method': 'prompts/list' }), 400, -32020],
      [
        send(url, 2, 'tools/call', { name: 'slow', arguments: {} }, { 'mcp-name': 'x' }),
        400,
        -32020,
      ],
      [
        post(url, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta() } }),
        400,
        -32020,
      ],
      [
        send(url, 4, 'tools/list', {
          _meta: { ...meta(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        }),
        400,
        -32022,
      ],
      [send(url, 5, 'ping'), 404, -32601],
      [send(url, 6, 'no/such/method'), 404, -32601],
      [send(url, 7, 'tools/call', { name: 'ask', arguments: {}, requestState: 'x' }), 400, -32602],
    ]
    for (const [pending, status, code] of cases) {
      const res = await pending
      const body = (await res.json()) as { id: unknown; error: { code: number; message: string } }
      assert.equal(res.status, status, body.error.message)
      assert.equal(body.error.code, code, body.error.message)
      assert.notEqual(body.id, null)
    }
  })

  it('accepts a 2025 MCP-Protocol-Version header next to a 2026-07-28 body', async () => {
    const res = await send(
      served.url,
      40,
      'tools/list',
      {},
      { 'mcp-protocol-version': '2025-11-25' },
    )
    assert.equal(res.status, 200)
  })
})
