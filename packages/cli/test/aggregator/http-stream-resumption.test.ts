/**
 * HttpChannel resuming a request's SSE stream that a scripted node:http server (port 0) ended
 * before the answer, after an event id (MCP 2025-11-25 SSE polling): the GET with Last-Event-ID
 * and the session's headers after the server's `retry`, a resumed stream that ends again, and the
 * bounds: refusals (405, 404 of a session still known), a server that closes every resumed stream
 * at once, one that keeps failing, the total time, and a call cancelled meanwhile. A stream
 * without an id fails at once, with no GET. The standalone GET stream reopens with Last-Event-ID.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import type { JsonRpcMessage } from '@burrow/protocol'
import { HttpChannel } from '../../src/aggregator/http-channel.js'
import { RESUME_LIMITS, type ResumeLimits } from '../../src/aggregator/stream-resumption.js'
import { silentLogger } from '../../src/log/logger.js'

type Post = (body: { id?: number; method?: string }, res: ServerResponse) => void
type Get = (req: IncomingMessage, res: ServerResponse) => void

/** A request the server saw, and when. */
interface Seen {
  readonly method: string
  readonly headers: IncomingMessage['headers']
  readonly at: number
}

const SESSION = 'sess-1'
const VERSION = '2025-11-25'
/** Small bounds, so that the hostile cases end quickly. */
const QUICK: ResumeLimits = { ...RESUME_LIMITS, minDelayMs: 10, maxResumes: 5, maxFailures: 3 }

describe('HttpChannel resuming response streams', { timeout: 30_000 }, () => {
  let server: Server
  let url: string
  let onPost: Post
  let onGet: Get
  const seen: Seen[] = []
  const channels: HttpChannel[] = []

  before(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, at: Date.now() })
        if (req.method === 'GET') return onGet(req, res)
        if (req.method !== 'POST') return void res.writeHead(200).end()
        const message = JSON.parse(body) as { id?: number; method?: string }
        if (message.method === 'initialize') {
          const result = { protocolVersion: VERSION, capabilities: {} }
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION })
          return void res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
        }
        if (message.method === 'ping') return answer(res, message.id!)
        if (message.id === undefined) return void res.writeHead(202).end()
        onPost(message, res)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  })

  beforeEach(() => {
    seen.length = 0
    onGet = (_req, res) => void res.writeHead(405).end()
  })

  after(async () => {
    await Promise.all(channels.map((c) => c.close()))
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  /** A channel with a session (initialized), and what it reported. */
  async function open(resumeLimits: ResumeLimits = QUICK, reopenGetMs = 1_000) {
    const channel = new HttpChannel({
      url,
      name: 'up',
      logger: silentLogger,
      resumeLimits,
      reopenGetMs,
    })
    channels.push(channel)
    const messages: JsonRpcMessage[] = []
    const lost: string[] = []
    channel.start({
      open: () => {},
      message: (m) => messages.push(m),
      lost: (reason) => lost.push(reason),
      bytes: () => {},
    })
    await channel.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} })
    messages.length = 0
    return { channel, messages, lost }
  }

  const resumes = () => seen.filter((s) => s.method === 'GET' && s.headers['last-event-id'])

  /** The error answer to `id` in `messages`, once there. */
  async function errorFor(messages: JsonRpcMessage[], id: number) {
    await until(() => messages.some((m) => 'error' in m && m.id === id))
    return messages.find((m) => 'error' in m && m.id === id) as {
      id: number
      error: { code: number; message: string }
    }
  }

  it('resumes a stream ended after its priming event, after the retry, and again after a second end', async () => {
    let posted = 0
    onPost = (_message, res) => {
      posted = Date.now()
      sse(res, `id: p1\nretry: 150\ndata: \n\n`)
      res.end()
    }
    onGet = (req, res) => {
      const last = req.headers['last-event-id']
      if (last === 'p1') {
        sse(res, `id: p2\ndata: ${JSON.stringify(log('between'))}\n\n`)
        return void res.end()
      }
      if (last === 'p2') return void sse(res, `id: p3\ndata: ${JSON.stringify(result(7))}\n\n`)
      res.writeHead(405).end()
    }
    const { channel, messages, lost } = await open()
    await channel.send({ jsonrpc: '2.0', id: 7, method: 'tools/call' })
    await until(() => messages.length === 2)
    assert.deepEqual(messages, [log('between'), result(7)])
    const [first, second] = resumes()
    assert.equal(first?.headers['last-event-id'], 'p1')
    assert.equal(first?.headers['mcp-session-id'], SESSION)
    assert.equal(first?.headers['mcp-protocol-version'], VERSION)
    assert.match(String(first?.headers.accept), /text\/event-stream/)
    assert.ok(first.at - posted >= 140, `resumed ${first.at - posted} ms after, not after retry`)
    assert.equal(second?.headers['last-event-id'], 'p2')
    assert.ok(second.at - first.at >= 140, 'the retry holds for the next resumption too')
    assert.deepEqual(lost, [])
  })

  it('resumes a stream that broke off after an event id', async () => {
    onPost = (_message, res) => {
      sse(res, `id: b1\ndata: \n\n`)
      res.write(': partial', () => res.socket?.destroy())
    }
    onGet = (req, res) => {
      if (req.headers['last-event-id'] !== 'b1') return void res.writeHead(405).end()
      sse(res, `data: ${JSON.stringify(result(3))}\n\n`)
    }
    const { channel, messages } = await open()
    await channel.send({ jsonrpc: '2.0', id: 3, method: 'tools/call' })
    await until(() => messages.length === 1)
    assert.deepEqual(messages, [result(3)])
  })

  it('fails a stream without an event id at once, with no GET', async () => {
    onPost = (_message, res) => {
      sse(res, `data: ${JSON.stringify(log('no id'))}\n\n`)
      res.end()
    }
    const { channel, messages } = await open()
    await channel.send({ jsonrpc: '2.0', id: 4, method: 'tools/call' })
    const failed = await errorFor(messages, 4)
    assert.equal(failed.error.code, -32000)
    assert.match(failed.error.message, /the response stream ended before the answer$/)
    assert.equal(resumes().length, 0)
  })

  it('fails the call when the server refuses to resume (405, or 404 for a session it still knows)', async () => {
    for (const status of [405, 404]) {
      seen.length = 0
      onPost = (_message, res) => {
        sse(res, `id: r1\nretry: 10\ndata: \n\n`)
        res.end()
      }
      onGet = (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: 'no such stream' },
          }),
        )
      }
      const { channel, messages, lost } = await open()
      await channel.send({ jsonrpc: '2.0', id: 5, method: 'tools/call' })
      const failed = await errorFor(messages, 5)
      assert.match(
        failed.error.message,
        new RegExp(
          `ended before the answer, and resuming it \\(GET with Last-Event-ID\\) was refused \\(HTTP ${status}: no such stream\\)`,
        ),
      )
      assert.equal(resumes().length, 1, 'a refusal is not asked again')
      assert.deepEqual(lost, [], 'the session answered its ping')
    }
  })

  it('gives up on a server that closes every resumed stream at once, after the bound of attempts', async () => {
    onPost = (_message, res) => {
      sse(res, `id: h0\nretry: 0\ndata: \n\n`)
      res.end()
    }
    let n = 0
    onGet = (_req, res) => {
      sse(res, `id: h${++n}\nretry: 0\ndata: \n\n`)
      res.end()
    }
    const { channel, messages, lost } = await open()
    const started = Date.now()
    await channel.send({ jsonrpc: '2.0', id: 6, method: 'tools/call' })
    const failed = await errorFor(messages, 6)
    assert.equal(failed.error.code, -32000)
    assert.match(
      failed.error.message,
      /upstream "up" at .*: the response stream ended before the answer, and burrow stopped resuming it after 5 attempts \(the bound\)/,
    )
    assert.equal(resumes().length, 5)
    // Each resumed from the newest id, never sooner than the least wait.
    assert.deepEqual(
      resumes().map((s) => s.headers['last-event-id']),
      ['h0', 'h1', 'h2', 'h3', 'h4'],
    )
    assert.ok(Date.now() - started >= 5 * QUICK.minDelayMs)
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(resumes().length, 5, 'nothing more is asked')
    assert.deepEqual(lost, [])
  })

  it('gives up once the total time is spent, whatever the attempts left', async () => {
    onPost = (_message, res) => {
      sse(res, `id: t0\nretry: 100\ndata: \n\n`)
      res.end()
    }
    onGet = (_req, res) => {
      sse(res, `id: t1\ndata: \n\n`)
      res.end()
    }
    const { channel, messages } = await open({ ...QUICK, maxResumes: 1000, maxSpanMs: 350 })
    await channel.send({ jsonrpc: '2.0', id: 8, method: 'tools/call' })
    const failed = await errorFor(messages, 8)
    assert.match(failed.error.message, /burrow stopped resuming it 0\.35 s after it first ended/)
    assert.ok(resumes().length >= 2 && resumes().length <= 4, `${resumes().length} resumptions`)
  })

  it('closes a resumed stream that stays open without the answer once the total time is spent', async () => {
    onPost = (_message, res) => {
      sse(res, `id: o0\nretry: 10\ndata: \n\n`)
      res.end()
    }
    // A server that ignores Last-Event-ID and streams on, never answering the call.
    onGet = (_req, res) => sse(res, `: open\n\n`)
    const { channel, messages } = await open({ ...QUICK, maxSpanMs: 400 })
    await channel.send({ jsonrpc: '2.0', id: 10, method: 'tools/call' })
    const failed = await errorFor(messages, 10)
    assert.match(failed.error.message, /burrow stopped resuming it 0\.4 s after it first ended/)
    assert.equal(resumes().length, 1)
  })

  it('does not resume from an event id no header can carry', async () => {
    for (const id of ['bad\u0001id', 'snow\u2603man', 'x'.repeat(1025)]) {
      seen.length = 0
      onPost = (_message, res) => {
        sse(res, `id: ${id}\nretry: 10\ndata: \n\n`)
        res.end()
      }
      const { channel, messages, lost } = await open()
      await channel.send({ jsonrpc: '2.0', id: 11, method: 'tools/call' })
      const failed = await errorFor(messages, 11)
      assert.match(failed.error.message, /the response stream ended before the answer$/)
      assert.equal(resumes().length, 0)
      assert.deepEqual(lost, [], 'the session is kept')
    }
  })

  it('asks again after a passing failure (503), and gives up after failures in a row', async () => {
    onPost = (_message, res) => {
      sse(res, `id: f0\nretry: 10\ndata: \n\n`)
      res.end()
    }
    let gets = 0
    onGet = (_req, res) => {
      gets += 1
      if (gets === 1) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy')
      sse(res, `data: ${JSON.stringify(result(9))}\n\n`)
    }
    const { channel, messages } = await open()
    await channel.send({ jsonrpc: '2.0', id: 9, method: 'tools/call' })
    await until(() => messages.length === 1)
    assert.deepEqual(messages, [result(9)])

    onGet = (_req, res) => void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy')
    await channel.send({ jsonrpc: '2.0', id: 10, method: 'tools/call' })
    const failed = await errorFor(messages, 10)
    assert.match(failed.error.message, /resuming it failed 3 times in a row \(HTTP 503: busy\)/)
  })

  it('stops resuming a call that is cancelled, and answers nothing for it', async () => {
    onPost = (_message, res) => {
      sse(res, `id: c0\nretry: 0\ndata: \n\n`)
      res.end()
    }
    onGet = (_req, res) => {
      sse(res, `id: c1\ndata: \n\n`)
      res.end()
    }
    const { channel, messages } = await open({ ...QUICK, minDelayMs: 200, maxResumes: 1000 })
    await channel.send({ jsonrpc: '2.0', id: 11, method: 'tools/call' })
    await until(() => resumes().length >= 1)
    const params = { requestId: 11, reason: 'the agent gave up' }
    await channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params })
    const count = resumes().length
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal(resumes().length, count, 'no GET after the cancel')
    assert.deepEqual(messages, [], 'the call was failed by whoever cancelled it')
  })

  it('reopens the GET stream with Last-Event-ID after its retry, and once afresh when that is refused', async () => {
    const gets: (string | undefined)[] = []
    onGet = (req, res) => {
      const last = req.headers['last-event-id'] as string | undefined
      gets.push(last)
      if (last === 'g1') return void res.writeHead(400).end('unknown event')
      if (gets.length > 1) return void sse(res, ': held open\n\n')
      sse(res, `id: g1\nretry: 200\ndata: ${JSON.stringify(log('on get'))}\n\n`)
      res.end()
    }
    onPost = () => {}
    const { channel, messages } = await open(QUICK, 20)
    await channel.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    await until(() => gets.length === 3)
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Opened; reopened from its id after the retry (200 ms, more than 20); refused; opened afresh
    // (and held open).
    assert.deepEqual(gets, [undefined, 'g1', undefined])
    const times = seen.filter((s) => s.method === 'GET').map((s) => s.at)
    assert.ok(times[1]! - times[0]! >= 190, 'the retry is honoured')
    assert.ok(times[2]! - times[1]! >= 190, 'and again after the refusal')
    assert.deepEqual(messages, [log('on get')])
  })
})

function sse(res: ServerResponse, text: string): void {
  if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.write(text)
}

function answer(res: ServerResponse, id: number): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }))
}

function result(id: number): JsonRpcMessage {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } }
}

function log(data: string): JsonRpcMessage {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } }
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
