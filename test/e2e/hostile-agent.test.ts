/**
 * Hostile traffic against real processes: a real burrowd, a real `burrow up`, real local MCP
 * servers, and raw sockets where a client library would refuse to send the bad input. What must
 * hold: nothing a stranger sends takes a tunnel offline or is counted when refused, no queue in
 * the broker grows without bound, guessing keys is throttled, cookies stay on the tunnel's host,
 * and every refusal is the envelope with the refused request's id.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { WebSocket } from 'ws'
import { encodeFrame } from '@burrow/protocol'
import { startChild, type Child } from '../helpers/child.js'
import { within } from '../helpers/fake-client.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  openSession,
  openStream,
  type OpenStream,
  postMcp,
  initializeMessage,
  liveCounter,
  startCountingServer,
  toolCall,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js'
import { rssOf } from '../helpers/rss.js'
import { BURROW, BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)

const HOSTILE_UPSTREAM = `${ROOT}test/fixtures/hostile-upstream.mjs`
const HELLO_SERVER = `${ROOT}examples/hello-server.mjs`

/** The envelope of a raw answer: policy, id and reason. */
function envelope(answer: RawAnswer): { policy: string; id: unknown; reason: string } {
  const body = JSON.parse(answer.body) as {
    id: unknown
    error: { data: { policy_code: string; reason: string } }
  }
  assert.equal(answer.header('x-burrow-error'), body.error.data.policy_code)
  return { policy: body.error.data.policy_code, id: body.id, reason: body.error.data.reason }
}

function hostOf(url: string): string {
  return new URL(url).host
}

const CALL = JSON.stringify(toolCall(1, 'echo', { message: 'hi' }))

describe('hostile agents against one tunnel', () => {
  let service: Service
  let counting: CountingServer
  let client: Child
  let url: string
  let host: string
  let tunnelId: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    counting = await startCountingServer()
    const tunnel = await service.tunnel('target')
    tunnelId = tunnel.id
    url = tunnel.url
    host = hostOf(url)
    client = await startClient(service, tunnel.key, ['--upstream', counting.url])
  })

  after(async () => {
    await client?.stop()
    await counting?.child.stop()
    await service?.close()
  })

  const post = (path: string, extra: readonly string[] = [], body = CALL) =>
    rawRequest(
      service.port,
      [
        `POST ${path} HTTP/1.1`,
        `Host: ${host}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        ...extra,
      ],
      body,
    )

  it('refuses a path the tunnel cannot carry with 414, before counting or forwarding', async () => {
    const before = await counting.counts()
    const answer = await post('/mcp?' + 'q'.repeat(9000))
    assert.equal(answer.status, 414)
    const e = envelope(answer)
    assert.equal(e.policy, 'uri_too_long')
    assert.equal(e.id, 1)
    assert.match(e.reason, /at most 8192/)
    assert.deepEqual(await counting.counts(), before)
  })

  it('answers an HTTP/1.1 request without a Host header with the envelope', async () => {
    const answer = await rawRequest(
      service.port,
      ['POST /mcp HTTP/1.1', 'Content-Type: application/json', 'Accept: application/json'],
      CALL,
    )
    assert.equal(answer.status, 400)
    const e = envelope(answer)
    assert.equal(e.policy, 'invalid_request')
    assert.match(e.reason, /need a Host header/)
  })

  it('refuses a request naming its Host twice, and answers CONNECT, with the envelope', async () => {
    // Found by a hostile review: two Host fields were routed by the first (RFC 9112 wants 400),
    // and a CONNECT's connection was closed unanswered.
    const before = await counting.counts()
    const answer = await post('/mcp', [`Host: other--acme.${host.split('.').slice(1).join('.')}`])
    assert.equal(answer.status, 400)
    const e = envelope(answer)
    assert.equal(e.policy, 'invalid_request')
    assert.match(e.reason, /names its Host more than once/)
    // A Host that is not a host and port was routed by the name before its last colon.
    const odd = await rawRequest(
      service.port,
      [
        'POST /mcp HTTP/1.1',
        `Host: ${host.split(':')[0]!}:x@mcp.example.test`,
        'Content-Type: application/json',
        'Accept: application/json',
      ],
      CALL,
    )
    assert.equal(odd.status, 400)
    assert.equal(envelope(odd).policy, 'invalid_request')
    assert.match(envelope(odd).reason, /not a host name or address/)
    assert.deepEqual(await counting.counts(), before)
    const connect = await rawRequest(service.port, [
      `CONNECT ${host}:443 HTTP/1.1`,
      `Host: ${host}`,
    ])
    assert.equal(connect.status, 400)
    assert.equal(envelope(connect).policy, 'invalid_request')
    assert.match(envelope(connect).reason, /CONNECT is not served/)
  })

  it('answers an Expect it cannot meet with the envelope, forwarding nothing', async () => {
    const before = await counting.counts()
    const answer = await post('/mcp', ['Expect: 200-ok'])
    assert.equal(answer.status, 400)
    const e = envelope(answer)
    assert.equal(e.policy, 'invalid_request')
    assert.match(e.reason, /Expect: 200-ok is not supported/)
    assert.deepEqual(await counting.counts(), before)
    // 100-continue is met as before (the raw reader stops at the interim answer).
    assert.equal((await post('/mcp', ['Expect: 100-continue'])).status, 100)
  })

  it('refuses 300 headers and a 12 KB header that encodes past 16 KiB with 431', async () => {
    const before = await counting.counts()
    const many = Array.from({ length: 300 }, (_, i) => `X-Filler-${i}: ${i}`)
    const a = await post('/mcp', many)
    assert.equal(a.status, 431)
    assert.equal(envelope(a).policy, 'headers_too_large')
    assert.equal(envelope(a).id, 1)
    // Twelve thousand quotes: 12 KB on the wire, 24 KB once JSON escapes them for the frame.
    const b = await post('/mcp', [`X-Quote: ${'"'.repeat(12_000)}`])
    assert.equal(b.status, 431)
    assert.match(envelope(b).reason, /bytes once encoded; at most 16256/)
    // Beyond node's own 16 KiB header limit the answer is still the envelope.
    const c = await post('/mcp', [`X-Huge: ${'h'.repeat(20_000)}`])
    assert.equal(c.status, 431)
    assert.equal(envelope(c).policy, 'headers_too_large')
    assert.deepEqual(await counting.counts(), before)
    // Many more: burrowd counts none of them as a call, opens no stream for them, and logs no
    // stack trace.
    const calls = await liveCounter(service, tunnelId, 'tool_calls')
    for (let i = 0; i < 200; i++) {
      assert.equal((await post('/mcp', [`X-Quote: ${'"'.repeat(12_000)}`])).status, 431)
    }
    assert.equal(await liveCounter(service, tunnelId, 'tool_calls'), calls)
    assert.deepEqual(await counting.counts(), before)
    assert.doesNotMatch(service.proc.stderr, /\n\s+at /, 'a stack trace in the log')
  })

  it('refuses batches of 50,000 notifications whole, counting nothing', async () => {
    const before = await counting.counts()
    const batch = JSON.stringify(
      Array.from({ length: 50_000 }, () => ({
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'echo' },
      })),
    )
    for (let i = 0; i < 2; i++) {
      const answer = await post('/mcp', ['MCP-Protocol-Version: 2025-03-26'], batch)
      assert.equal(answer.status, 400, answer.body.slice(0, 300))
      const e = envelope(answer)
      assert.equal(e.policy, 'invalid_request')
      assert.match(e.reason, /at most 100 messages/)
    }
    // A batch within the cap still may not sneak calls in as notifications.
    const small = JSON.stringify([{ jsonrpc: '2.0', method: 'tools/call', params: { name: 'e' } }])
    const refused = await post('/mcp', ['MCP-Protocol-Version: 2025-03-26'], small)
    assert.equal(envelope(refused).policy, 'invalid_request')
    // And a batch is not part of 2025-06-18.
    const modern = JSON.stringify([toolCall(5, 'echo')])
    const later = await post('/mcp', ['MCP-Protocol-Version: 2025-06-18'], modern)
    assert.equal(later.status, 400)
    // A refused batch is answered as a batch: one envelope per request.
    const answers = JSON.parse(later.body) as { id: unknown; error: { data: { reason: string } } }[]
    assert.deepEqual(
      answers.map((a) => a.id),
      [5],
    )
    assert.match(answers[0]!.error.data.reason, /not part of MCP 2025-06-18/)
    assert.deepEqual(await counting.counts(), before)
  })

  it('is still online after all of it: the client never reconnected, and a call succeeds', async () => {
    const session = await openSession(url)
    const answer = await postMcp(url, toolCall('after', 'echo', { message: 'still here' }), session)
    assert.equal(answer.status, 200, answer.text)
    assert.match(answer.text, /still here/)
    assert.equal((client.stdout + client.stderr).match(/Tunnel online/g)?.length, 1)
    assert.doesNotMatch(client.stderr, /connection lost|reconnecting/)
    assert.doesNotMatch(service.proc.stderr, /protocol error/)
  })

  it('keeps a notification flood out of the call history: the call after it is recorded', async () => {
    const calls = () => historyCount(service, "tool = 'marked'")
    const session = await openSession(url)
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress' })
    const sends: Promise<unknown>[] = []
    // A thousand tell as much as twenty thousand did: one recorded notification fails the test,
    // whether or not the flood fills the history's queue (10,000 rows) before the call.
    for (let i = 0; i < 1_000; i++) {
      sends.push(
        publicFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': session,
          },
          body: notification,
        }).then((r) => r.arrayBuffer()),
      )
      if (sends.length >= 200) await Promise.all(sends.splice(0))
    }
    await Promise.all(sends)
    const marked = await postMcp(url, toolCall('after-flood', 'marked', { message: 'm' }), session)
    assert.equal(marked.status, 200)
    // History is written in the background, about every second.
    const deadline = Date.now() + 20_000
    while (calls() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    assert.equal(calls(), 1)
    assert.equal(historyCount(service, "method like 'notifications/%'"), 0)
  })
})

/** Rows of the service's call history matching `where`. */
function historyCount(service: Service, where: string): number {
  const db = new Database(`${service.dataDir}/burrow.db`, { readonly: true })
  try {
    return (
      db.prepare(`select count(*) as n from call_history where ${where}`).get() as { n: number }
    ).n
  } finally {
    db.close()
  }
}

describe('an upstream that misbehaves', () => {
  let service: Service
  let upstream: Child
  let client: Child
  let url: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    upstream = startChild(process.execPath, [HOSTILE_UPSTREAM])
    const [, port] = await upstream.waitFor(/hostile upstream listening on (\d+)/)
    const tunnel = await service.tunnel('cookies')
    url = tunnel.url
    client = await startClient(service, tunnel.key, ['--upstream', `http://127.0.0.1:${port}/mcp`])
  })

  after(async () => {
    await client?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it('cannot plant cookies beyond the tunnel host; each Set-Cookie stays its own field', async () => {
    const answer = await postMcp(url, toolCall(3, 'echo'))
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.headers.getSetCookie(), [
      'burrow_session=planted; Path=/; HttpOnly',
      'upstream_pref=dark; Path=/',
    ])
    assert.match(answer.headers.get('content-security-policy') ?? '', /^sandbox/)
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff')
  })

  it('answers a response head too large for the tunnel with a 502 envelope carrying the id', async () => {
    const answer = await postMcp(url, toolCall('big', 'big_header'))
    assert.equal(answer.status, 502, answer.text)
    const body = answer.json as {
      id: unknown
      error: { data: { policy_code: string; reason: string } }
    }
    assert.equal(body.id, 'big')
    assert.equal(body.error.data.policy_code, 'upstream_unreachable')
    assert.match(body.error.data.reason, /cannot cross the tunnel/)
    // The tunnel is fine.
    assert.equal((await postMcp(url, toolCall(4, 'echo'))).status, 200)
    assert.equal((client.stdout + client.stderr).match(/Tunnel online/g)?.length, 1)
  })

  it('answers an unreachable upstream with a 502 envelope carrying the id', async () => {
    await upstream.stop()
    const answer = await postMcp(url, toolCall(1, 'echo'))
    assert.equal(answer.status, 502)
    const body = answer.json as { id: unknown; error: { data: { policy_code: string } } }
    assert.equal(body.id, 1)
    assert.equal(body.error.data.policy_code, 'upstream_unreachable')
  })
})

for (const [layout, args] of [
  ['stdio', ['--stdio', `node ${HELLO_SERVER}`]],
  ['aggregator', ['--stdio', `a=node ${HELLO_SERVER}`, '--stdio', `b=node ${HELLO_SERVER}`]],
] as const) {
  describe(`a ${layout} tunnel at its session cap`, () => {
    let service: Service
    let client: Child
    let url: string

    before(async () => {
      service = await startService({ BURROW_LOG: 'info' })
      const tunnel = await service.tunnel(`${layout}-cap`)
      url = tunnel.url
      client = await startClient(service, tunnel.key, args)
    })

    after(async () => {
      await client?.stop()
      await service?.close()
    })

    it('counts an initialize carrying a made-up Mcp-Session-Id as a new session', async () => {
      // Three sessions in use (their GET streams open), so none gives its place.
      const streams: OpenStream[] = []
      for (let i = 0; i < 3; i++) streams.push(await openStream(url, await openSession(url)))
      const sneaky = await postMcp(url, initializeMessage('sneak'), 'made-up-session-id')
      assert.equal(sneaky.status, 429, sneaky.text)
      const body = sneaky.json as { id: unknown; error: { data: { policy_code: string } } }
      assert.equal(body.error.data.policy_code, 'session_limit')
      assert.equal(body.id, 'sneak')
      for (const stream of streams) stream.close()
    })
  })
}

describe('a tunnel client that floods PINGs and never reads', () => {
  let service: Service
  let key: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    key = (await service.tunnel('flood')).key
  })

  after(async () => {
    await service?.close()
  })

  it('is cut off, and burrowd grows by less than 150 MB', async () => {
    const pid = service.proc.proc.pid!
    const ws = new WebSocket(service.broker, {
      perMessageDeflate: false,
      headers: { authorization: `Bearer ${key}` },
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    ws.send(encodeFrame({ type: 'hello', hello: { version: 1, agent: 'flood/1' } }))
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()))
    // Read nothing from here on: the broker's PONGs pile up on its side.
    const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    socket.pause()
    const before = rssOf(pid) ?? 0
    let peak = before
    const ping = encodeFrame({ type: 'ping', payload: 7 })
    const until = Date.now() + 12_000
    while (Date.now() < until && ws.readyState === WebSocket.OPEN) {
      for (let i = 0; i < 2000; i++) ws.send(ping)
      await new Promise((r) => setImmediate(r))
      peak = Math.max(peak, rssOf(pid) ?? 0)
    }
    assert.ok(
      peak - before < 150 * 1024 * 1024,
      `burrowd grew by ${Math.round((peak - before) / 1048576)} MB`,
    )
    socket.resume()
    await within(closed, 15_000, 'the flooding connection to be closed')
    assert.match(service.proc.stderr, /control frames unread|bytes unread/)
  })
})

describe('guessing tunnel keys', () => {
  let service: Service
  let key: string

  before(async () => {
    // At debug level too, nothing is logged per guess.
    service = await startService({ BURROW_LOG: 'debug' })
    key = (await service.tunnel('guarded')).key
  })

  after(async () => {
    await service?.close()
  })

  const attempt = (guess: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: service.port,
        headers: {
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          authorization: `Bearer ${guess}`,
        },
      })
      req.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('upgrade', (res, socket) => {
        socket.destroy()
        resolve(res.statusCode ?? 101)
      })
      req.on('error', reject)
      req.end()
    })

  it('checks at most one in ten of 2,000 wrong keys; the rest get 429; the owner still connects', async () => {
    // All at once: the lookups of the first guesses are still pending when the rest arrive.
    const statuses = await Promise.all(
      Array.from({ length: 2000 }, (_, i) => attempt(`mtk_guess${i}`)),
    )
    const checked = statuses.filter((s) => s === 401).length
    const throttled = statuses.filter((s) => s === 429).length
    assert.equal(checked + throttled, 2000, `other statuses: ${[...new Set(statuses)].join(', ')}`)
    assert.ok(checked <= 200, `${checked} keys were checked`)
    assert.ok(throttled >= 1800)
    // Logged in aggregate (a line a minute), not a line per guess.
    const lines = service.proc.stderr.split('\n').filter((l) => /unknown key|throttled/.test(l))
    assert.ok(lines.length <= 2, lines.join('\n'))
    // The owner's client, started now, gets 429 with Retry-After, waits, and connects.
    const client = startChild(
      process.execPath,
      [BURROW, '--broker', service.broker, 'up', '--stdio', `node ${HELLO_SERVER}`],
      { env: { ...process.env, BURROW_API_KEY: key } },
    )
    try {
      await client.waitFor(/Tunnel online/, 60_000)
    } finally {
      await client.stop()
    }
  })
})

/**
 * A local server that holds every answer until `release()`; `reached` resolves when the first
 * request arrives, so that burrowd has a request in flight when it is told to stop.
 */
async function heldUpstream() {
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  let arrived: () => void = () => {}
  const reached = new Promise<void>((resolve) => (arrived = resolve))
  const upstream = createServer((req, res) => {
    arrived()
    req.resume()
    req.on('end', () => {
      void held.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [] } }))
      })
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`
  return { url, reached, release, upstream }
}

describe('stopping and starting burrowd', () => {
  it('stops on SIGTERM with clients connected, logging no failure', async () => {
    const service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('stopper')
    const client = await startClient(service, tunnel.key, ['--stdio', `node ${HELLO_SERVER}`])
    try {
      assert.equal(await service.proc.stop('SIGTERM'), 0)
      assert.match(service.proc.stderr, /stopped/)
      assert.doesNotMatch(service.proc.stderr, /driver has already been destroyed|could not record/)
    } finally {
      await client.stop()
      await service.close()
    }
  })

  /**
   * A burrowd with a request in flight (its local server holds the answer until `release`) and
   * a connection kept alive after an answer, as a proxy in front keeps its connections; `text`
   * is what that connection received since the last `clear`.
   */
  async function drainingSetup(name: string) {
    const { url: upstreamUrl, reached, release, upstream } = await heldUpstream()
    const service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel(name)
    const client = await startClient(service, tunnel.key, ['--upstream', upstreamUrl])
    const close = async () => {
      release()
      await client.stop()
      await service.close()
      upstream.close()
    }
    try {
      const inFlight = publicFetch(tunnel.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: CALL,
      })
      await reached
      const kept = connect(service.port, '127.0.0.1')
      const seen = { text: '', closed: false }
      kept.on('data', (c: Buffer) => (seen.text += c.toString('latin1')))
      kept.on('error', () => {})
      kept.on('close', () => (seen.closed = true))
      const host = `Host: 127.0.0.1:${service.port}\r\n`
      const readyz = `GET /readyz HTTP/1.1\r\n${host}\r\n`
      kept.write(readyz)
      // The whole answer: its body, and the end of its chunks when it has them.
      while (!/ready\n(\r\n0\r\n\r\n)?$/.test(seen.text))
        await new Promise((r) => setTimeout(r, 10))
      return { service, tunnel, inFlight, kept, seen, host, readyz, release, close }
    } catch (err) {
      await close()
      throw err
    }
  }

  it('keeps serving a kept-alive connection while it drains, and closes it after the answer', async () => {
    const d = await drainingSetup('drainer')
    try {
      assert.match(d.seen.text, /^HTTP\/1\.1 200 /)
      assert.doesNotMatch(d.seen.text, /connection: close/i)
      d.seen.text = ''
      const stopped = d.service.proc.stop('SIGTERM', 30_000)
      await d.service.proc.waitFor(/shutting down/)
      await new Promise((r) => setTimeout(r, 200))
      assert.equal(
        d.seen.closed,
        false,
        'the kept-alive connection was closed when the drain began',
      )
      d.kept.write(d.readyz)
      while (!d.seen.closed) await new Promise((r) => setTimeout(r, 10))
      assert.match(
        d.seen.text,
        /^HTTP\/1\.1 503 /,
        `the kept-alive connection got: ${JSON.stringify(d.seen.text)}`,
      )
      assert.match(d.seen.text, /\r\nconnection: close\r\n/i)
      assert.match(d.seen.text, /draining/)
      d.release()
      assert.equal((await d.inFlight).status, 200)
      assert.equal(await stopped, 0)
    } finally {
      await d.close()
    }
  })

  it("closes, unanswered, a tunnel client's upgrade on a kept-alive connection while it drains", async () => {
    const d = await drainingSetup('rejoiner')
    try {
      d.seen.text = ''
      const stopped = d.service.proc.stop('SIGTERM', 30_000)
      await d.service.proc.waitFor(/shutting down/)
      // The tunnel's client, told to go, connects again on that connection with a valid key.
      d.kept.write(
        `GET /connect HTTP/1.1\r\n${d.host}Upgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
          `Authorization: Bearer ${d.tunnel.key}\r\n\r\n`,
      )
      while (!d.seen.closed) await new Promise((r) => setTimeout(r, 10))
      // Closed unanswered: a load balancer sends the upgrade to another node.
      assert.equal(d.seen.text, '', `the upgrade got: ${JSON.stringify(d.seen.text)}`)
      d.release()
      assert.equal((await d.inFlight).status, 200)
      assert.equal(await stopped, 0)
    } finally {
      await d.close()
    }
  })

  it('explains in one line that it cannot write a read-only database', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-ro-'))
    try {
      await run(process.execPath, [BURROWD, 'migrate'], {
        env: { ...process.env, BURROW_DATA_DIR: dir },
      })
      const file = join(dir, 'burrow.db')
      // Only a mount makes a file read-only for root; where mounting is not allowed, say so.
      try {
        await run('mount', ['-o', 'bind,ro', file, file])
      } catch (err) {
        t.skip(`cannot bind-mount a read-only file here: ${(err as Error).message.split('\n')[0]}`)
        return
      }
      try {
        const child = startChild(process.execPath, [BURROWD, 'serve'], {
          env: { ...process.env, BURROW_DATA_DIR: dir, BURROW_LISTEN: '127.0.0.1:0' },
        })
        assert.equal(await child.exited, 1)
        assert.match(child.stderr, /^burrowd: cannot open the SQLite database .*readonly.*write/)
        assert.equal(child.stderr.trim().split('\n').length, 1, child.stderr)
        assert.doesNotMatch(child.stderr, /internal error|\n {4}at /)
      } finally {
        await run('umount', [file])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('explains in one line that it cannot write a read-only data directory', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-ro-dir-'))
    try {
      try {
        await run('mount', ['-o', 'bind,ro', dir, dir])
      } catch (err) {
        t.skip(
          `cannot bind-mount a read-only directory here: ${(err as Error).message.split('\n')[0]}`,
        )
        return
      }
      try {
        const child = startChild(process.execPath, [BURROWD, 'serve'], {
          env: { ...process.env, BURROW_DATA_DIR: dir, BURROW_LISTEN: '127.0.0.1:0' },
        })
        assert.equal(await child.exited, 1)
        assert.match(
          child.stderr,
          /^burrowd: cannot open the SQLite database .*must be able to create and write files there/,
        )
        assert.equal(child.stderr.trim().split('\n').length, 1, child.stderr)
        assert.doesNotMatch(child.stderr, /internal error|\n {4}at /)
      } finally {
        await run('umount', [dir])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
