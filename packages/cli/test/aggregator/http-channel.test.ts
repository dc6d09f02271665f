/**
 * HttpChannel against a scripted node:http server on port 0, for the wire cases a well-behaved
 * MCP server rarely shows: session and version headers, a response stream that ends without the
 * answer, error bodies, a forgotten session (404, or 400 naming it), an unreachable server and
 * the GET stream.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { HttpChannel } from '../../src/aggregator/http-channel.js'
import { MAX_UNANSWERED_POSTS } from '../../src/aggregator/post-tracker.js'
import type { JsonRpcMessage } from '@burrow/protocol'
import { silentLogger } from '../../src/log/logger.js'

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void

interface Seen {
  readonly method: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

describe('HttpChannel', { timeout: 20_000 }, () => {
  let server: Server
  let url: string
  let handler: Handler
  const seen: Seen[] = []
  const channels: HttpChannel[] = []

  before(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, body })
        // No GET stream (405 is the spec's "not offered"); DELETE of a session is fine.
        if (req.method !== 'POST') return void res.writeHead(req.method === 'GET' ? 405 : 200).end()
        handler(req, body, res)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  })

  after(async () => {
    await Promise.all(channels.map((c) => c.close()))
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  /** A started channel and what it reported. */
  function open(target = url) {
    const channel = new HttpChannel({ url: target, name: 'up', logger: silentLogger })
    channels.push(channel)
    const messages: JsonRpcMessage[] = []
    const lost: string[] = []
    let opened = 0
    channel.start({
      open: () => (opened += 1),
      message: (m) => messages.push(m),
      lost: (reason) => lost.push(reason),
      bytes: () => {},
    })
    return { channel, messages, lost, opened: () => opened }
  }

  const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } as const
  const initResult = { protocolVersion: '2025-06-18', capabilities: {} }

  it('keeps the session id and negotiated version, and opens the GET stream after initialized', async () => {
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id?: number; method?: string }
      if (message.method === 'initialize') {
        return json(
          res,
          200,
          { jsonrpc: '2.0', id: message.id, result: initResult },
          {
            'mcp-session-id': 'sess-1',
          },
        )
      }
      if (message.id === undefined) return void res.writeHead(202).end()
      json(res, 200, { jsonrpc: '2.0', id: message.id, result: { ok: true } })
    }
    seen.length = 0
    const { channel, messages, lost, opened } = open()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(opened(), 1)
    await channel.send(initialize)
    await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    await channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', id: 1, result: initResult },
      { jsonrpc: '2.0', id: 2, result: { ok: true } },
    ])
    const after = seen.filter((s) => s.body.includes('tools/list'))[0]
    assert.equal(after?.headers['mcp-session-id'], 'sess-1')
    assert.equal(after?.headers['mcp-protocol-version'], '2025-06-18')
    await until(() => seen.some((s) => s.method === 'GET'))
    assert.deepEqual(lost, [], 'a 405 on GET is no loss')
  })

  it('answers a request whose response stream ends without the answer', async () => {
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id: number }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { p: 1 } }
      res.write(`id: x\ndata: \n\ndata: ${JSON.stringify(progress)}\n\n`)
      void message
      res.end()
    }
    const { channel, messages } = open()
    await channel.send({ jsonrpc: '2.0', id: 7, method: 'tools/call' })
    await until(() => messages.length === 2)
    assert.equal((messages[0] as { method?: string }).method, 'notifications/progress')
    const answer = messages[1] as { id: number; error: { code: number; message: string } }
    assert.equal(answer.id, 7)
    assert.equal(answer.error.code, -32000)
    // It carried an event id, so it was resumed first: this server offers no GET (405).
    assert.match(
      answer.error.message,
      /upstream "up" .* the response stream ended before the answer, and resuming it \(GET with Last-Event-ID\) was refused \(HTTP 405\)$/,
    )
  })

  it('skips events that are not JSON-RPC, and fails a request whose JSON answer is unreadable', async () => {
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id: number }
      if (message.id === 2) {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end('{"jsonrpc":')
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const answer = { jsonrpc: '2.0', id: message.id, result: { ok: true } }
      res.end(`data: not json\n\ndata: {"id":${message.id}}\n\ndata: ${JSON.stringify(answer)}\n\n`)
    }
    const { channel, messages } = open()
    await channel.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' })
    await until(() => messages.length === 1)
    await channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' })
    await until(() => messages.length === 2)
    assert.deepEqual(messages[0], { jsonrpc: '2.0', id: 1, result: { ok: true } })
    const failed = messages[1] as { id: number; error: { message: string } }
    assert.equal(failed.id, 2)
    assert.match(failed.error.message, /unreadable JSON in the answer \(HTTP 200\)/)
  })

  it('passes a JSON-RPC error body on, and quotes other error bodies', async () => {
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id: number }
      if (message.id === 1) return json(res, 400, { error: { code: -32602, message: 'bad args' } })
      res.writeHead(500, { 'content-type': 'text/plain' }).end('kaput')
    }
    const { channel, messages, lost } = open()
    await channel.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' })
    await channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' })
    assert.deepEqual(messages[0], {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'bad args' },
    })
    assert.match((messages[1] as { error: { message: string } }).error.message, /HTTP 500 .*kaput/)
    assert.deepEqual(lost, [])
  })

  it('reports a forgotten session (404, or 400 naming it) as lost', async () => {
    for (const [status, text] of [
      [404, 'Session not found'],
      [400, 'Bad Request: No valid session ID provided'],
    ] as const) {
      handler = (_req, body, res) => {
        const message = JSON.parse(body) as { id: number; method: string }
        if (message.method === 'initialize') {
          return json(
            res,
            200,
            { jsonrpc: '2.0', id: message.id, result: initResult },
            {
              'mcp-session-id': 'old',
            },
          )
        }
        json(res, status, { jsonrpc: '2.0', id: null, error: { code: -32000, message: text } })
      }
      const { channel, lost } = open()
      await channel.send(initialize)
      await assert.rejects(
        channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        new RegExp(`no longer knows our session \\(HTTP ${status}\\)`),
      )
      assert.equal(lost.length, 1)
      assert.match(lost[0]!, new RegExp(`HTTP ${status}`))
    }
  })

  it('keeps the session when a ping under it is answered, whatever one call was refused with', async () => {
    // A server may refuse one call with 400 and an error quoting its input, which can name a
    // session: taken as the session's end, one agent's call ended every agent's (found by a
    // review).
    for (const status of [400, 404]) {
      handler = (_req, body, res) => {
        const message = JSON.parse(body) as { id: number; method: string }
        if (message.method === 'initialize') {
          const result = { jsonrpc: '2.0', id: message.id, result: initResult }
          return json(res, 200, result, { 'mcp-session-id': 'live' })
        }
        if (message.method === 'ping')
          return json(res, 200, { jsonrpc: '2.0', id: message.id, result: {} })
        const error = { code: -32602, message: 'no such key "session"' }
        json(res, status, { jsonrpc: '2.0', id: message.id, error })
      }
      const { channel, lost, messages } = open()
      await channel.send(initialize)
      await channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } })
      assert.deepEqual(lost, [])
      const answer = messages.at(-1) as { id: number; error: { code: number; message: string } }
      assert.equal(answer.id, 2)
      assert.equal(answer.error.code, -32602)
      const pings = seen.filter((s) => s.body.includes('"ping"'))
      assert.equal(pings.at(-1)?.headers['mcp-session-id'], 'live')
    }
  })

  /** Writes `head` then `fill` without end, as fast as the client reads, until it hangs up. */
  const endless = (res: ServerResponse, status: number, type: string, head: string) => {
    res.writeHead(status, { 'content-type': type })
    const fill = Buffer.alloc(256 * 1024, 'a')
    res.write(head)
    const pump = (): void => {
      while (!res.destroyed && res.write(fill));
      if (!res.destroyed) res.once('drain', pump)
    }
    res.on('close', () => hangups.push(status))
    pump()
  }
  const hangups: number[] = []

  it('fails a request whose JSON answer passes the bound, and stops reading it', async () => {
    hangups.length = 0
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id: number }
      if (message.id === 1)
        endless(res, 200, 'application/json', '{"jsonrpc":"2.0","id":1,"result":{"a":"')
      else endless(res, 500, 'text/plain', 'kaput ')
    }
    const { channel, messages, lost } = open()
    await channel.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' })
    await channel.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' })
    const first = messages[0] as { id: number; error: { code: number; message: string } }
    assert.equal(first.id, 1)
    assert.equal(first.error.code, -32000)
    assert.match(first.error.message, /answer is larger than 64 MiB/)
    const second = messages[1] as { id: number; error: { message: string } }
    assert.equal(second.id, 2)
    assert.match(second.error.message, /HTTP 500 .*: kaput a+$/)
    assert.ok(second.error.message.length < 2200)
    await until(() => hangups.length === 2)
    assert.deepEqual(lost, [])
  })

  it('drops the POST of a request it cancels, and holds few unanswered notifications, when the server never answers', async () => {
    // A server that reads every POST and never answers, counting the connections still open.
    const open_ = new Set<ServerResponse>()
    const hung = createServer((req, res) => {
      req.resume()
      open_.add(res)
      res.on('close', () => open_.delete(res))
    })
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve))
    const target = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/mcp`
    try {
      const { channel } = open(target)
      let settled = 0
      const send = (message: JsonRpcMessage) =>
        void channel
          .send(message)
          .catch(() => {})
          .finally(() => (settled += 1))
      for (let id = 1; id <= 20; id++) send({ jsonrpc: '2.0', id, method: 'tools/call' })
      await until(() => open_.size === 20)
      for (let id = 1; id <= 20; id++) {
        const params = { requestId: id, reason: 'the agent gave up' }
        send({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
      }
      for (let n = 0; n < 200; n++) {
        send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: n } })
      }
      // Every cancelled request's POST is dropped; of the notifications, at most the bound stays.
      await until(() => settled >= 240 - MAX_UNANSWERED_POSTS)
      await until(() => open_.size <= MAX_UNANSWERED_POSTS)
    } finally {
      hung.closeAllConnections()
      await new Promise((resolve) => hung.close(resolve))
    }
  })

  it('stops reading a response stream once its answer came, when the server keeps it open', async () => {
    const open_ = new Set<ServerResponse>()
    handler = (_req, body, res) => {
      const message = JSON.parse(body) as { id: number }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} })}\n\n`)
      open_.add(res)
      res.on('close', () => open_.delete(res))
    }
    const { channel, messages } = open()
    for (let id = 1; id <= 20; id++)
      await channel.send({ jsonrpc: '2.0', id, method: 'tools/call' })
    await until(() => messages.length === 20)
    assert.deepEqual(
      messages.map((m) => (m as { id: number }).id),
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    await until(() => open_.size === 0)
  })

  it('shows the URL without its credentials or query, which may hold a key', async () => {
    handler = (_req, _body, res) =>
      void res.writeHead(500, { 'content-type': 'text/plain' }).end('no')
    const { channel, messages } = open(`${url}?api_key=s3cret`)
    await channel.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' })
    const failed = messages[0] as { id: number; error: { message: string } }
    assert.equal(failed.id, 1)
    assert.match(failed.error.message, /HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/mcp\?… ?: no/)
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const dead = open(`http://ann:pa55@127.0.0.1:${port}/mcp?token=s3cret#k=s3cret`)
    await assert.rejects(dead.channel.send(initialize), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(`^http://127\\.0\\.0\\.1:${port}/mcp\\?… is unreachable`),
      )
      return true
    })
    for (const text of [JSON.stringify(messages), ...dead.lost]) {
      assert.doesNotMatch(text, /s3cret|pa55|ann/)
    }
  })

  it('fails a call whose JSON answer breaks off, however little of it came', async () => {
    for (const sent of ['', '{"jsonrpc":"2.0","id":1,"res']) {
      handler = (_req, _body, res) => {
        // A server that crashes or resets mid-answer, after its head.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
        res.write(sent, () => res.socket?.destroy())
      }
      const { channel, messages } = open()
      // Before, a body that broke before its first byte read as an empty answer (a notification's
      // acknowledgement), and the call was never answered; the aggregate's calls have no timeout.
      await assert.rejects(
        channel.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' }),
        /broke off its answer \(HTTP 200\)/,
      )
      assert.deepEqual(messages, [])
    }
  })

  it('reports an unreachable server as lost, naming the URL and the cause', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const { channel, lost } = open(`http://127.0.0.1:${port}/mcp`)
    await assert.rejects(
      channel.send(initialize),
      /127\.0\.0\.1:\d+\/mcp is unreachable: .*ECONNREFUSED/,
    )
    assert.equal(lost.length, 1)
    assert.match(lost[0]!, /ECONNREFUSED/)
  })
})

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
