/**
 * McpFront on the wire, with a raw HTTP client and the tiny slow-stdio-server fixture as the child:
 * header checks and statuses, JSON versus SSE responses, event ids and keep-alives, the GET stream,
 * server→client requests, id rewriting across sessions, cancellation, batches and child crashes.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'
import {
  allMessagesOf,
  answerOf,
  initialize,
  initializeRequest,
  messagesOf,
  post,
  SseReader,
} from '../helpers/raw-mcp.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'

const slowServer = { command: process.execPath, args: [fixturePath('slow-stdio-server.mjs')] }

function slowCall(id: number | string, args: Record<string, unknown>, token?: string): unknown {
  const params = {
    name: 'slow',
    arguments: args,
    ...(token ? { _meta: { progressToken: token } } : {}),
  }
  return { jsonrpc: '2.0', id, method: 'tools/call', params }
}

function toolText(message: Record<string, unknown>): unknown {
  const result = message.result as { content: { text: string }[] }
  return JSON.parse(result.content[0]!.text)
}

after(closeAllFronts)

describe('McpFront over HTTP', { timeout: 30_000 }, () => {
  let served: ServedFront
  let logger: CaptureLogger

  before(async () => {
    logger = captureLogger()
    served = await serveStdioFront({ ...slowServer, logger, front: { keepAliveMs: 1_000 } })
  })
  after(() => served.close())

  it('refuses bad headers, paths, methods and bodies like the SDK server', async () => {
    const { url } = served
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    // Each refusal answers the refused request's id when the body is one request with an id
    // (one that is not valid JSON-RPC included, as the edge answers it).
    // A refused batch gets one error per request, as JSON-RPC answers a batch.
    const cases: [Promise<Response>, number, number | undefined, (number | null | number[])?][] = [
      [post(url, {}, { accept: 'application/json' }), 406, -32000],
      [post(url, {}, { 'content-type': 'text/plain' }), 415, -32000],
      [post(url, '{"jsonrpc": "2.0", "method": '), 400, -32700],
      [post(url, { jsonrpc: '1.0', id: 1, method: 'ping' }), 400, -32600, 1],
      [post(url, '[]'), 400, -32600],
      [post(url, '42'), 400, -32600],
      [post(url, [ping, { jsonrpc: '2.0', method: 'notifications/x' }, ping]), 400, -32600, [1, 1]],
      [post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }), 400, -32000, 1],
      [
        post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'nope' }),
        404,
        -32001,
        1,
      ],
      [post(url, ping, { accept: 'application/json' }), 406, -32000, 1],
      [post(url, ping, { 'content-type': 'text/plain' }), 415, -32000, 1],
      [post(url, [ping, ping]), 400, -32600, [1, 1]],
      [post(url, [ping, { ...ping, id: 2 }], { accept: 'application/json' }), 406, -32000, [1, 2]],
      [post(new URL('/other', url), {}), 404, -32000],
      [fetch(url, { method: 'PUT' }), 405, -32000],
      [fetch(url, { headers: { accept: 'application/json' } }), 406, -32000],
      [fetch(url, { headers: { accept: 'text/event-stream' } }), 400, -32000],
      [fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': 'nope' } }), 404, -32001],
    ]
    type Refusal = { id: unknown; error: { code: number; message: string } }
    for (const [pending, status, code, id = null] of cases) {
      const res = await pending
      const body = (await res.json()) as Refusal | Refusal[]
      const all = Array.isArray(body) ? body : [body]
      assert.equal(res.status, status, all[0]!.error.message)
      for (const one of all) assert.equal(one.error.code, code)
      if (Array.isArray(id)) {
        assert.ok(Array.isArray(body), 'a refused batch is answered with an array')
        assert.deepEqual(
          all.map((one) => one.id),
          id,
        )
      } else assert.equal((body as Refusal).id, id, all[0]!.error.message)
    }
  })

  it("answers a session's refused request with its id (a reused id, a second initialize)", async () => {
    const s = await initialize(served.url)
    // Its first progress turns the answer into SSE: the call is in flight once headers arrive.
    const first = await s.post(slowCall('dup', { ms: 400, steps: 4 }, 'tok-dup'))
    assert.equal(first.headers.get('content-type'), 'text/event-stream')
    const again = await s.post(slowCall('dup', { ms: 1 }))
    assert.equal(again.status, 400)
    const refused = (await again.json()) as { id: unknown; error: { message: string } }
    assert.equal(refused.id, 'dup')
    assert.match(refused.error.message, /already in flight/)
    const init = await s.post({
      jsonrpc: '2.0',
      id: 'init-again',
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    })
    assert.equal(init.status, 400)
    const body = (await init.json()) as { id: unknown; error: { message: string } }
    assert.equal(body.id, 'init-again')
    assert.match(body.error.message, /already initialized/)
    await first.text()
  })

  it('answers an initialize sent in a batch with one error per request', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 'init-in-batch',
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    }
    const res = await post(served.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, init])
    assert.equal(res.status, 400)
    const body = (await res.json()) as { id: unknown; error: { code: number; message: string } }[]
    assert.deepEqual(
      body.map((m) => m.id),
      [1, 'init-in-batch'],
    )
    for (const m of body) {
      assert.equal(m.error.code, -32600)
      assert.match(m.error.message, /initialize must be sent alone/)
    }
  })

  it('initializes the child once and answers later sessions from the cache', async () => {
    const a = await initialize(served.url)
    const b = await initialize(served.url, '2025-06-18')
    assert.notEqual(a.sessionId, b.sessionId)
    assert.match(a.sessionId, /^[\x21-\x7e]+$/)
    assert.deepEqual(b.result, a.result)
    assert.equal(b.result.protocolVersion, '2025-11-25')
    const ping = await (await b.post({ jsonrpc: '2.0', id: 'p', method: 'ping' })).json()
    assert.deepEqual(ping, { jsonrpc: '2.0', id: 'p', result: {} })
    // stderr travels apart from stdout: wait for the lines, then check no second one came.
    await logger.waitForCount(/\] initialized$/, 1)
    assert.deepEqual(await logger.waitForCount(/\] initialize #/, 1), [
      'INFO  [stdio] initialize #1',
    ])
    assert.equal(logger.lines.filter((l) => /\] initialized$/.test(l)).length, 1)
  })

  it('answers with JSON when nothing comes before the response, 202 for notifications', async () => {
    const s = await initialize(served.url)
    const res = await s.post(slowCall(1, { ms: 10 }))
    assert.equal(res.headers.get('content-type'), 'application/json')
    assert.equal(res.headers.get('mcp-session-id'), s.sessionId)
    const body = (await res.json()) as Record<string, unknown>
    assert.equal(body.id, 1)
    const note = await s.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })
    assert.equal(note.status, 202)
    assert.equal(await note.text(), '')
  })

  it('answers an answer nested too deep to write again with an error for its id', async () => {
    const s = await initialize(served.url)
    // 5,000 levels parse but overflow JSON.stringify: this threw out of the child's output reader.
    const deep = { name: 'deep', arguments: { depth: 5_000 } }
    const res = await s.post({ jsonrpc: '2.0', id: 'deep-1', method: 'tools/call', params: deep })
    const body = (await answerOf(res)) as { id: unknown; error: { code: number; message: string } }
    assert.equal(body.id, 'deep-1')
    assert.equal(body.error.code, -32603)
    assert.match(body.error.message, /nests arrays and objects deeper than 1000 levels/)
    await logger.waitFor(/skipped a stdout line nested too deep to forward/)
    const ping = await s.post({ jsonrpc: '2.0', id: 'after', method: 'ping' })
    assert.deepEqual(await answerOf(ping), { jsonrpc: '2.0', id: 'after', result: {} })
  })

  it('switches to SSE for progress, with event ids and the agent token', async () => {
    const s = await initialize(served.url)
    const res = await s.post(slowCall(7, { ms: 300, steps: 1 }, 'tok-a'))
    assert.equal(res.headers.get('content-type'), 'text/event-stream')
    assert.equal(res.headers.get('x-accel-buffering'), 'no')
    assert.equal(res.headers.get('cache-control'), 'no-cache')
    const reader = new SseReader(res)
    const events = await reader.rest()
    const [progress, answer] = messagesOf(events)
    assert.deepEqual(progress, {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok-a', progress: 1, total: 1 },
    })
    assert.equal(answer!.id, 7)
    const seen = toolText(answer!) as { slept: number; token: unknown }
    assert.equal(seen.slept, 300)
    assert.equal(typeof seen.token, 'number', 'the child saw its own token, not the agent one')
    const ids = events.map((e) => e.id)
    assert.ok(ids.every((id) => id !== undefined) && new Set(ids).size === ids.length)
    assert.deepEqual(reader.comments, [], 'no keep-alive needed within a second')
  })

  it('keeps two sessions apart when they use the same ids and tokens', async () => {
    const [a, b] = [await initialize(served.url), await initialize(served.url)]
    const [ra, rb] = await Promise.all([
      a.post(slowCall(1, { ms: 150, steps: 1 }, 'same')),
      b.post(slowCall(1, { ms: 100, steps: 1 }, 'same')),
    ])
    const [ma, mb] = [
      messagesOf(await new SseReader(ra).rest()),
      messagesOf(await new SseReader(rb).rest()),
    ]
    assert.deepEqual(
      ma.map((m) => m.id ?? (m.params as { progressToken: string }).progressToken),
      ['same', 1],
    )
    assert.deepEqual(
      mb.map((m) => m.id ?? (m.params as { progressToken: string }).progressToken),
      ['same', 1],
    )
    assert.equal((toolText(ma[1]!) as { slept: number }).slept, 150)
    assert.equal((toolText(mb[1]!) as { slept: number }).slept, 100)
  })

  it('routes a server→client request to the calling agent and its answer back', async () => {
    // An agent that did not declare sampling is never asked: the child hears why.
    const plain = await initialize(served.url)
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask' } }
    const refused = await answerOf(await plain.post(call))
    assert.match(JSON.stringify(refused), /did not declare the .*sampling.* capability/)
    const s = await initialize(served.url, '2025-11-25', { sampling: {} })
    const reader = new SseReader(
      await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask' } }),
    )
    const [ask] = messagesOf([(await reader.next())!])
    assert.equal(ask!.method, 'sampling/createMessage')
    const answer = {
      jsonrpc: '2.0',
      id: ask!.id,
      result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'yes' } },
    }
    assert.equal((await s.post(answer)).status, 202)
    const [done] = messagesOf(await reader.rest())
    assert.equal(done!.id, 3)
    assert.deepEqual(toolText(done!), answer.result)
  })

  it('refuses a server→client request while calls of several sessions are in flight', async () => {
    // stdio does not say which call a request is for: with A's and B's calls both in the child,
    // B (whose call is the latest) must not get A's question, nor A guess; the child is told.
    const [a, b] = [await initialize(served.url), await initialize(served.url)]
    const ask = { name: 'ask', arguments: { delayMs: 1_500 } }
    const asking = a.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: ask })
    await logger.waitFor(/\] ask waits 1500$/)
    const sleeping = b.post(slowCall(8, { ms: 2_500 }))
    const answer = await answerOf(await asking)
    assert.equal(answer.id, 7)
    assert.match(JSON.stringify(answer), /calls of several clients are in flight/)
    const res = await sleeping
    assert.deepEqual(
      (await allMessagesOf(res)).map((m) => m.method ?? m.id),
      [8],
      'B saw nothing but its answer',
    )
  })

  it('refuses a request the child wrote for a call just cancelled, not hand it to another', async () => {
    // A's call is cancelled, but the child (this fixture ignores cancellation of ask) still asks
    // for it; B's call is then the only one in flight and must not receive A's question.
    const [a, b] = [await initialize(served.url), await initialize(served.url)]
    const ask = { name: 'ask', arguments: { delayMs: 300 } }
    const asking = a.post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: ask })
    await logger.waitFor(/\] ask waits 300$/)
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }
    assert.equal((await a.post(cancel)).status, 202)
    await (await asking).text()
    const sleeping = b.post(slowCall(10, { ms: 2_500 }))
    const res = await sleeping
    assert.deepEqual(
      (await allMessagesOf(res)).map((m) => m.method ?? m.id),
      [10],
      'B saw nothing but its answer',
    )
    await logger.waitFor(/sampling\/createMessage refused: calls of several clients/)
  })

  it('binds a session to the agent that opened it (Burrow-Agent): others get 404', async () => {
    const init = initializeRequest('a')
    const opened = await post(served.url, init, { 'burrow-agent': 'agt_a' })
    const sessionId = opened.headers.get('mcp-session-id')!
    await opened.text()
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    const as = (agent?: string) =>
      post(served.url, ping, {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        ...(agent === undefined ? {} : { 'burrow-agent': agent }),
      })
    for (const other of ['agt_b', undefined, 'AGT_A']) {
      const res = await as(other)
      assert.equal(res.status, 404, String(other))
      await res.text()
    }
    const own = await as('agt_a')
    assert.equal(own.status, 200)
    assert.deepEqual(((await answerOf(own)) as { result: unknown }).result, {})
  })

  it('delivers unrelated notifications on the GET stream and allows one GET per session', async () => {
    const s = await initialize(served.url)
    const headers = { accept: 'text/event-stream', 'mcp-session-id': s.sessionId }
    const get = await fetch(served.url, { headers })
    assert.equal(get.status, 200)
    assert.equal(get.headers.get('content-type'), 'text/event-stream')
    const second = await fetch(served.url, { headers })
    assert.equal(second.status, 409)
    await second.body?.cancel()
    const call = await s.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'announce' },
    })
    assert.equal(call.headers.get('content-type'), 'application/json')
    const stream = new SseReader(get)
    const methods = messagesOf([(await stream.next())!, (await stream.next())!]).map(
      (m) => m.method,
    )
    assert.deepEqual(methods, ['notifications/tools/list_changed', 'notifications/message'])
    await stream.cancel()
  })

  it('reopens a GET stream from a GET event id but refuses to resume a POST stream', async () => {
    const s = await initialize(served.url)
    const res = await s.post(slowCall(1, { ms: 100, steps: 1 }, 't'))
    const [first] = await new SseReader(res).rest()
    assert.match(first!.id!, /^p\d+$/)
    const headers = { accept: 'text/event-stream', 'mcp-session-id': s.sessionId }
    const resume = await fetch(served.url, { headers: { ...headers, 'last-event-id': first!.id! } })
    assert.equal(resume.status, 405)
    await resume.body?.cancel()
    const reopen = await fetch(served.url, { headers: { ...headers, 'last-event-id': 'g1' } })
    assert.equal(reopen.status, 200)
    await reopen.body?.cancel()
  })

  it('cancels at the child when the agent hangs up or sends notifications/cancelled', async () => {
    const s = await initialize(served.url)
    const abort = new AbortController()
    const hungUp = s.post(slowCall('bye', { ms: 5_000 }), abort.signal)
    setTimeout(() => abort.abort(), 100)
    await assert.rejects(hungUp)
    await logger.waitFor(/\] cancelled \d+$/)
    const pending = s.post(slowCall('c', { ms: 5_000 }))
    await new Promise((r) => setTimeout(r, 100))
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } }
    assert.equal((await s.post(cancel)).status, 202)
    const body = (await (await pending).json()) as { id: string; error: { message: string } }
    assert.deepEqual([body.id, body.error.message], ['c', 'request cancelled by the client'])
    await logger.waitForCount(/\] cancelled \d+$/, 2)
  })

  it('ends a session on DELETE and answers 404 afterwards; refuses batches after 2025-03-26', async () => {
    const s = await initialize(served.url)
    const batch = await s.post([slowCall(1, { ms: 1 }), slowCall(2, { ms: 1 })])
    assert.equal(batch.status, 400)
    const refused = (await batch.json()) as { id: number; error: { message: string } }[]
    assert.deepEqual(
      refused.map((m) => m.id),
      [1, 2],
    )
    assert.match(refused[0]!.error.message, /batches/)
    const del = await fetch(served.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': s.sessionId },
    })
    assert.equal(del.status, 200)
    const after = await s.post({ jsonrpc: '2.0', id: 1, method: 'ping' })
    assert.equal(after.status, 404)
    await after.body?.cancel()
  })
})

describe('McpFront keep-alives', { timeout: 30_000 }, () => {
  it('turns a silent call into SSE and keeps it and the GET stream alive', async () => {
    const served = await serveStdioFront({ ...slowServer, front: { keepAliveMs: 50 } })
    try {
      const s = await initialize(served.url)
      const get = await fetch(served.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': s.sessionId },
      })
      const res = await s.post(slowCall(1, { ms: 300 }))
      assert.equal(res.headers.get('content-type'), 'text/event-stream')
      const reader = new SseReader(res)
      const [answer] = messagesOf(await reader.rest())
      assert.equal(answer!.id, 1)
      assert.ok(reader.comments.length >= 3, `keep-alives: ${reader.comments.join(', ')}`)
      assert.ok(reader.comments.every((c) => c === 'keepalive'))
      const stream = new SseReader(get)
      await assert.rejects(stream.next(100), /no SSE event in time/)
      assert.ok(stream.comments.includes('keepalive'))
      await stream.cancel()
    } finally {
      await served.close()
    }
  })
})

describe('McpFront with batches (MCP 2025-03-26 and before)', { timeout: 30_000 }, () => {
  for (const version of ['2025-03-26', '2024-11-05']) {
    it(`answers a batch of requests with an array in a ${version} session`, async () => {
      const served = await serveStdioFront(slowServer)
      try {
        const s = await initialize(served.url, version)
        const res = await s.post([
          slowCall(1, { ms: 30 }),
          { jsonrpc: '2.0', method: 'notifications/x' },
          slowCall(2, { ms: 1 }),
        ])
        assert.equal(res.headers.get('content-type'), 'application/json')
        const body = (await res.json()) as { id: number }[]
        assert.deepEqual(body.map((m) => m.id).sort(), [1, 2])
      } finally {
        await served.close()
      }
    })
  }
})

describe('McpFront when the child crashes', { timeout: 30_000 }, () => {
  it('fails open requests, ends sessions (404) and serves new ones after the restart', async () => {
    const logger = captureLogger()
    const served = await serveStdioFront({
      ...slowServer,
      logger,
      supervisor: { timing: { initialBackoffMs: 200 } },
    })
    try {
      const a = await initialize(served.url)
      const b = await initialize(served.url)
      const slow = b.post(slowCall(9, { ms: 5_000 }))
      await new Promise((r) => setTimeout(r, 50))
      const crash = await a.post({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'crash' },
      })
      const failed = (await crash.json()) as { error: { message: string } }
      assert.match(failed.error.message, /the stdio server exited and is restarting/)
      const orphan = (await (await slow).json()) as { id: number; error: { message: string } }
      assert.equal(orphan.id, 9)
      assert.match(orphan.error.message, /initialize again/)
      for (const s of [a, b]) {
        const res = await s.post({ jsonrpc: '2.0', id: 2, method: 'ping' })
        assert.equal(res.status, 404)
        await res.body?.cancel()
      }
      // Sent during the backoff: the initialize waits for the new child.
      const c = await initialize(served.url)
      assert.equal(c.result.protocolVersion, '2025-11-25')
      const ping = await (await c.post({ jsonrpc: '2.0', id: 3, method: 'ping' })).json()
      assert.deepEqual(ping, { jsonrpc: '2.0', id: 3, result: {} })
      assert.equal(served.supervisor.generation, 2)
      await logger.waitForCount(/\] initialize #1$/, 2)
    } finally {
      await served.close()
    }
  })
})

describe('McpFront before a stdio server that does not read', { timeout: 30_000 }, () => {
  it('drops notifications with one warning and answers requests 503 with their id', async () => {
    const logger = captureLogger()
    const served = await serveStdioFront({
      ...slowServer,
      logger,
      supervisor: { maxQueuedBytes: 64 * 1024 },
    })
    try {
      const s = await initialize(served.url)
      const call = (id: number, name: string, args: Record<string, unknown>) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      })
      const blocked = s.post(call(1, 'block', { ms: 1_500 }))
      await logger.waitFor(/\] block$/)
      // The pipe holds 64 KiB and the bound another 64: 40 notifications of 8 KiB pass both.
      const pad = 'p'.repeat(8 * 1024)
      for (let i = 0; i < 40; i++) {
        const res = await s.post({ jsonrpc: '2.0', method: 'notifications/x', params: { pad } })
        assert.equal(res.status, 202)
        await res.body?.cancel()
      }
      const refused = await s.post({ jsonrpc: '2.0', id: 'p-1', method: 'ping' })
      assert.equal(refused.status, 503)
      assert.equal(refused.headers.get('retry-after'), '1')
      const body = (await refused.json()) as { id: unknown; error: { message: string } }
      assert.equal(body.id, 'p-1')
      assert.match(body.error.message, /has not read the last \d+ KiB sent to it/)
      const batch = await s.post([
        { jsonrpc: '2.0', id: 'b-1', method: 'ping' },
        { jsonrpc: '2.0', id: 'b-2', method: 'ping' },
      ])
      assert.equal(batch.status, 503)
      assert.deepEqual(
        ((await batch.json()) as { id: unknown }[]).map((m) => m.id),
        ['b-1', 'b-2'],
      )
      const warnings = logger.lines.filter((l) => /further messages are dropped/.test(l))
      assert.equal(warnings.length, 1, warnings.join('\n'))
      assert.match(warnings[0]!, /WARN.*notifications\/x not delivered to the stdio server/)
      // Once it reads again, requests pass.
      assert.equal((await answerOf(await blocked)).id, 1)
      for (let id = 2; ; id++) {
        const res = await s.post({ jsonrpc: '2.0', id, method: 'ping' })
        if (res.status === 200) {
          assert.deepEqual(await res.json(), { jsonrpc: '2.0', id, result: {} })
          break
        }
        assert.equal(res.status, 503)
        await res.body?.cancel()
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    } finally {
      await served.close()
    }
  })
})

describe(
  'McpFront before a stdio server whose answer is over the line bound',
  { timeout: 30_000 },
  () => {
    it('answers the call with an error for its id rather than not at all', async () => {
      const logger = captureLogger()
      const served = await serveStdioFront({
        ...slowServer,
        logger,
        supervisor: { maxLineBytes: 64 * 1024 },
      })
      try {
        const s = await initialize(served.url)
        const big = { name: 'big', arguments: { bytes: 100_000 } }
        const res = await s.post({ jsonrpc: '2.0', id: 'big-1', method: 'tools/call', params: big })
        const body = (await answerOf(res)) as { id: unknown; error: { message: string } }
        assert.equal(body.id, 'big-1')
        assert.match(body.error.message, /more than the 65536 bytes burrow reads from one line/)
        assert.ok(logger.lines.some((l) => /dropped a stdout line of \d+ bytes/.test(l)))
        const small = { name: 'big', arguments: { bytes: 10 } }
        const ok = await s.post({
          jsonrpc: '2.0',
          id: 'big-2',
          method: 'tools/call',
          params: small,
        })
        assert.ok('result' in (await answerOf(ok)))
      } finally {
        await served.close()
      }
    })
  },
)

describe(
  'McpFront before a stdio server whose batch of answers is over the line bound',
  { timeout: 60_000 },
  () => {
    it("answers each of the batch's calls with an error, none whose id is only nested", async () => {
      const logger = captureLogger()
      // Three answers of 4 MiB each: one line over the default bound of 10 MiB.
      const served = await serveStdioFront({
        command: process.execPath,
        args: [fixturePath('batch-stdio-server.mjs')],
        logger,
      })
      try {
        const sessions = await Promise.all([1, 2, 3, 4].map(() => initialize(served.url)))
        const call = (id: string, name: string): unknown => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: {} },
        })
        // The held call's id is nested in every result of the batch; it is answered after it.
        const held = sessions[3]!.post(call('held', 'hold'))
        await answerOf(await sessions[3]!.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }))
        const answers = await Promise.all(
          sessions.slice(0, 3).map(async (s, k) => answerOf(await s.post(call(`b-${k}`, 'b')))),
        )
        for (const [k, answer] of answers.entries()) {
          const { id, error } = answer as { id: unknown; error: { code: number; message: string } }
          assert.equal(id, `b-${k}`)
          assert.equal(error.code, -32603)
          assert.match(error.message, /more than the 10485760 bytes burrow reads from one line/)
        }
        const heldAnswer = (await answerOf(await held)) as { id: unknown; result?: unknown }
        assert.equal(heldAnswer.id, 'held')
        assert.deepEqual(heldAnswer.result, { content: [{ type: 'text', text: 'held' }] })
        assert.ok(
          logger.lines.some((l) =>
            /dropped a stdout line of \d+ bytes .*, a batch of 3 answers$/.test(l),
          ),
        )
      } finally {
        await served.close()
      }
    })
  },
)

describe(
  'McpFront before a stdio server that asks more than the agent answers',
  { timeout: 30_000 },
  () => {
    it('refuses requests past what one agent may hold unanswered', async () => {
      const logger = captureLogger()
      const served = await serveStdioFront({ ...slowServer, logger })
      try {
        const s = await initialize(served.url, '2025-11-25', { roots: {} })
        const flood = { name: 'flood', arguments: { count: 1_005 } }
        const res = await s.post({ jsonrpc: '2.0', id: 'f', method: 'tools/call', params: flood })
        const messages = await allMessagesOf(res)
        assert.equal(messages.filter((m) => m.method === 'roots/list').length, 1_000)
        // The last five came back to the server as errors (it logs answers it did not expect).
        const refused = () => logger.lines.filter((l) => /unexpected response "f-\d+"/.test(l))
        await logger.waitFor(/unexpected response "f-1005"/)
        assert.deepEqual(
          refused().map((l) => /"(f-\d+)"/.exec(l)![1]),
          ['f-1001', 'f-1002', 'f-1003', 'f-1004', 'f-1005'],
        )
      } finally {
        await served.close()
      }
    })
  },
)

describe('McpFront before a stdio server that reuses an id', { timeout: 30_000 }, () => {
  it('passes its first request to the agent and drops the second, unanswered', async () => {
    const logger = captureLogger()
    const served = await serveStdioFront({ ...slowServer, logger })
    try {
      const s = await initialize(served.url, '2025-11-25', { roots: {} })
      const twice = { name: 'twice', arguments: {} }
      const res = await s.post({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: twice })
      const asks = (await allMessagesOf(res)).filter((m) => m.method === 'roots/list')
      assert.equal(asks.length, 1)
      assert.equal(asks[0]!.params, undefined, 'the first of the two')
      await logger.waitFor(/stdio server reused the id "dup"; ignored/)
      // Not refused either (the agent lacks sampling): a refusal would read as the first's answer.
      const ping = await s.post({ jsonrpc: '2.0', id: 'p', method: 'ping' })
      assert.equal(ping.status, 200)
      assert.ok(!logger.lines.some((l) => /unexpected response "dup"/.test(l)), 'nothing answered')
    } finally {
      await served.close()
    }
  })
})

describe('McpFront’s bound on sessions', { timeout: 30_000 }, () => {
  it('ends the least recently used idle session for a new one, never a busy one', async () => {
    const served = await serveStdioFront({ ...slowServer, front: { maxSessions: 3 } })
    try {
      const ping = (s: { post(body: unknown): Promise<Response> }, id: number) =>
        s.post({ jsonrpc: '2.0', id, method: 'ping' })
      const [a, b, c] = [
        await initialize(served.url),
        await initialize(served.url),
        await initialize(served.url),
      ]
      // a holds its GET stream, b is used after c: c is the least recently used idle one.
      const stream = await fetch(served.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': a.sessionId },
      })
      assert.equal(stream.status, 200)
      await (await ping(b, 1)).body?.cancel()
      const d = await initialize(served.url)
      assert.equal(served.front.sessionCount, 3)
      const gone = await ping(c, 2)
      assert.equal(gone.status, 404, 'the agent is told to initialize again')
      await gone.body?.cancel()
      for (const [s, id] of [
        [a, 3],
        [b, 4],
        [d, 5],
      ] as const) {
        assert.deepEqual(await (await ping(s, id)).json(), { jsonrpc: '2.0', id, result: {} })
      }
      // Every session busy (a on its GET stream, b and d in slow calls): a new one is refused.
      const slowB = b.post(slowCall(6, { ms: 1_500 }))
      const slowD = d.post(slowCall(7, { ms: 1_500 }))
      await new Promise((r) => setTimeout(r, 200))
      const refused = await post(served.url, initializeRequest('x'))
      assert.equal(refused.status, 503)
      assert.match(
        ((await refused.json()) as { error: { message: string } }).error.message,
        /all 3 sessions are in use/,
      )
      await Promise.all([(await slowB).body?.cancel(), (await slowD).body?.cancel()])
      await stream.body?.cancel()
    } finally {
      await served.close()
    }
  })
})
