// The HTTP relay against a real local server on 127.0.0.1: small replies whole, big ones streamed
// with backpressure, path and query mapping, hop-by-hop headers dropped, aborts reaching the
// upstream, an unreachable upstream answered with the refusal envelope.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer as createTcpServer } from 'node:net'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { HttpRelay } from '../../src/relay/http-relay.js'
import type { LocalRequest, LocalResponse } from '../../src/relay/local-exchange.js'

/** A LocalResponse that records what the relay wrote; `full` makes write() report backpressure. */
class Recorder implements LocalResponse {
  status = 0
  /** Every status writeHead was called with: a response has one head. */
  heads: number[] = []
  headers: Readonly<Record<string, string>> = {}
  chunks: Buffer[] = []
  ended = false
  destroyed: string | null = null
  full = false
  drainWaiting: (() => void) | null = null
  writesWhileFull = 0
  get closed(): boolean {
    return this.ended || this.destroyed !== null
  }
  get body(): string {
    return Buffer.concat(this.chunks).toString()
  }
  writeHead(status: number, headers: Readonly<Record<string, string>>): void {
    this.status = status
    this.heads.push(status)
    this.headers = headers
  }
  write(chunk: Uint8Array): boolean {
    if (this.drainWaiting) this.writesWhileFull++
    this.chunks.push(Buffer.from(chunk))
    return !this.full
  }
  end(): void {
    this.ended = true
  }
  onDrain(cb: () => void): void {
    this.drainWaiting = cb
  }
  destroy(reason: string): void {
    this.destroyed = reason
  }
  /** Let a writer that saw `false` continue. */
  drain(): void {
    const cb = this.drainWaiting
    this.drainWaiting = null
    cb?.()
  }
}

function request(overrides: Partial<LocalRequest> = {}): LocalRequest {
  return {
    method: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', 'content-length': '999' },
    body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'),
    signal: new AbortController().signal,
    ...overrides,
  }
}

describe('HttpRelay', () => {
  let server: Server
  let port: number
  const seen: {
    method?: string
    url?: string
    headers?: IncomingMessage['headers']
    body?: string
  }[] = []
  const aborted: string[] = []
  let onRequest: (req: IncomingMessage, res: ServerResponse, body: string) => void = () => {}

  before(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body })
        onRequest(req, res, body)
      })
      res.on('close', () => {
        if (!res.writableFinished) aborted.push(req.url ?? '')
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as { port: number }).port
  })

  after(() => server.close())

  const relay = () => new HttpRelay(`http://127.0.0.1:${port}/rpc?fixed=1`, silentLogger)

  it('relays a small reply whole, without the local hop-by-hop headers', async () => {
    onRequest = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': '11',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'mcp-session-id': 'abc',
      })
      res.end('{"ok":true}')
    }
    const r = relay()
    const res = new Recorder()
    await r.handle(request({ path: '/mcp?x=1' }), res)
    await r.close()
    assert.equal(res.status, 200)
    assert.equal(res.body, '{"ok":true}')
    assert.ok(res.ended)
    assert.equal(res.headers['mcp-session-id'], 'abc')
    assert.equal(res.headers['content-type'], 'application/json')
    assert.equal(res.headers.connection, undefined)
    assert.equal(res.headers['keep-alive'], undefined)
    const last = seen[seen.length - 1]!
    assert.equal(last.url, '/rpc?fixed=1&x=1', "the public query is added to the upstream's")
    assert.equal(last.method, 'POST')
    assert.equal(last.body, '{"jsonrpc":"2.0","id":1,"method":"ping"}')
    assert.equal(last.headers!['content-length'], '40', 'the declared length is the real one')
  })

  it('relays the final answer, not the interim ones (102 Processing, 103 Early Hints) before it', async () => {
    for (const streamed of [false, true]) {
      onRequest = (_req, res) => {
        res.writeProcessing()
        res.writeEarlyHints({ link: '</style.css>; rel=preload', 'set-cookie': 'early=1' })
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}'
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(streamed ? {} : { 'content-length': String(body.length) }),
        })
        res.end(body)
      }
      const r = relay()
      const res = new Recorder()
      await r.handle(request(), res)
      await r.close()
      assert.deepEqual(res.heads, [200], streamed ? 'streamed' : 'whole')
      assert.equal(res.body, '{"jsonrpc":"2.0","id":1,"result":{}}')
      assert.equal(res.headers.link, undefined, "the interim answer's headers are not the answer's")
      assert.equal(res.headers['set-cookie'], undefined)
      assert.ok(res.ended)
    }
  })

  it('relays the final answer after a 100 Continue the server sent unasked', async () => {
    for (const streamed of [false, true]) {
      onRequest = (_req, res) => {
        res.writeContinue()
        res.writeProcessing()
        res.writeContinue()
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}'
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(streamed ? {} : { 'content-length': String(body.length) }),
        })
        res.end(body)
      }
      const r = relay()
      // Several on one kept-alive connection: each answer's 100 is skipped, never its body.
      for (let i = 0; i < 3; i++) {
        const res = new Recorder()
        await r.handle(request(), res)
        assert.deepEqual(res.heads, [200], streamed ? 'streamed' : 'whole')
        assert.equal(res.body, '{"jsonrpc":"2.0","id":1,"result":{}}')
        assert.ok(res.ended)
      }
      await r.close()
    }
  })

  it('relays a request that came with Expect: 100-continue (the edge met it)', async () => {
    onRequest = (_req, res) => res.end('{}')
    const r = relay()
    const res = new Recorder()
    await r.handle(
      request({ headers: { 'content-type': 'application/json', expect: '100-continue' } }),
      res,
    )
    await r.close()
    assert.equal(res.status, 200, res.body)
    assert.equal(seen[seen.length - 1]!.headers!.expect, undefined)
  })

  it("keeps the upstream's own query when the public path has none", async () => {
    onRequest = (_req, res) => res.end('{}')
    const r = relay()
    await r.handle(request(), new Recorder())
    await r.close()
    assert.equal(seen[seen.length - 1]!.url, '/rpc?fixed=1')
  })

  it("never lets an agent's query drop or change what the upstream URL's query sets", async () => {
    // Found by a hostile review: any agent query replaced the upstream URL's whole, so an agent
    // could drop a key given there or turn a setting the user fixed (readonly=1) off.
    const r = new HttpRelay('http://127.0.0.1:1/mcp?api_key=S&readonly=1', silentLogger)
    assert.equal(r.pathFor('/mcp'), '/mcp?api_key=S&readonly=1')
    assert.equal(r.pathFor('/mcp?'), '/mcp?api_key=S&readonly=1')
    assert.equal(r.pathFor('/mcp?readonly=0'), '/mcp?api_key=S&readonly=1')
    assert.equal(r.pathFor('/mcp?api%5Fkey=X&page=2'), '/mcp?api_key=S&readonly=1&page=2')
    assert.equal(r.pathFor('/mcp?a=1&&b&readonly'), '/mcp?api_key=S&readonly=1&a=1&b')
    // Names a server framework reads as the same: PHP's `.` and space, arrays, any case.
    for (const name of ['api.key', 'api+key', 'api%20key', 'READONLY', 'readonly[]', 'Api_Key[x]'])
      assert.equal(r.pathFor(`/mcp?${name}=0&z=1`), '/mcp?api_key=S&readonly=1&z=1', name)
    const plain = new HttpRelay('http://127.0.0.1:1/mcp', silentLogger)
    assert.equal(plain.pathFor('/mcp?x=%20y&x=2'), '/mcp?x=%20y&x=2', 'kept as the agent wrote it')
    assert.equal(plain.targetFor('/mcp?x=1'), 'http://127.0.0.1:1/mcp?…')
    await Promise.all([r.close(), plain.close()])
  })

  it('streams a big reply and stops reading while the tunnel is full', async () => {
    const piece = Buffer.alloc(64 * 1024, 'y')
    onRequest = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      let left = 32
      const pump = () => {
        while (left-- > 0) if (!res.write(piece)) return void res.once('drain', pump)
        res.end()
      }
      pump()
    }
    const r = relay()
    const res = new Recorder()
    res.full = true
    const done = r.handle(request(), res)
    // Release the reader each time it waits, as the tunnel does when the agent reads.
    while (!res.ended) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      res.drain()
    }
    await done
    await r.close()
    assert.equal(res.status, 200)
    assert.equal(Buffer.concat(res.chunks).length, 32 * piece.length)
    assert.ok(res.chunks.length > 1, 'the body streamed in pieces')
    // undici may hand over what it already parsed, but never a whole socket read more.
    assert.ok(res.writesWhileFull <= 2, `${res.writesWhileFull} writes while full`)
  })

  it('answers a 400 for an unknown session as 404, so the agent re-initializes', async () => {
    onRequest = (_req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain', 'content-length': '28' })
      res.end('Bad Request: no such session')
    }
    const r = relay()
    const res = new Recorder()
    await r.handle(request({ headers: { 'mcp-session-id': 'gone' } }), res)
    await r.close()
    assert.equal(res.status, 404)
  })

  it('aborts the local call when the request is aborted (onAbort)', async () => {
    onRequest = () => {} // never answers
    const r = relay()
    const res = new Recorder()
    let abort: ((reason: Error) => void) | undefined
    const req = request({
      path: '/mcp?hang=onabort',
      onAbort: (listener) => (abort = listener),
    })
    const done = r.handle(req, res)
    while (!seen.some((s) => s.url === '/rpc?fixed=1&hang=onabort'))
      await new Promise((x) => setTimeout(x, 5))
    abort!(new Error('agent left'))
    await done
    while (!aborted.includes('/rpc?fixed=1&hang=onabort'))
      await new Promise((x) => setTimeout(x, 5))
    await r.close()
    assert.equal(res.status, 0, 'nothing is written for an aborted call')
    assert.equal(res.ended, false)
  })

  it('aborts the local call when the request signal aborts', async () => {
    onRequest = () => {}
    const r = relay()
    const res = new Recorder()
    const controller = new AbortController()
    const done = r.handle(request({ path: '/mcp?hang=signal', signal: controller.signal }), res)
    while (!seen.some((s) => s.url === '/rpc?fixed=1&hang=signal'))
      await new Promise((x) => setTimeout(x, 5))
    controller.abort(new Error('agent left'))
    await done
    while (!aborted.includes('/rpc?fixed=1&hang=signal')) await new Promise((x) => setTimeout(x, 5))
    await r.close()
    assert.equal(res.status, 0)
  })

  it('answers an unreachable upstream with a 502 naming it', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const deadPort = (closed.address() as { port: number }).port
    closed.close()
    await once(closed, 'close')
    const r = new HttpRelay(`http://127.0.0.1:${deadPort}/mcp`, silentLogger)
    const res = new Recorder()
    await r.handle(request(), res)
    await r.close()
    assert.equal(res.status, 502)
    assert.match(res.body, new RegExp(`127\\.0\\.0\\.1:${deadPort}/mcp`))
    assert.match(res.body, /ECONNREFUSED/)
  })

  it('names an unreachable upstream without its credentials or query, which may hold a key', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const deadPort = (closed.address() as { port: number }).port
    closed.close()
    await once(closed, 'close')
    const r = new HttpRelay(`http://ann:pa55@127.0.0.1:${deadPort}/mcp?key=s3cret`, silentLogger)
    const res = new Recorder()
    await r.handle(request(), res)
    await r.close()
    assert.equal(res.status, 502)
    assert.match(res.body, new RegExp(`http://127\\.0\\.0\\.1:${deadPort}/mcp\\?… is unreachable`))
    assert.doesNotMatch(res.body, /s3cret|pa55|ann/)
  })

  it("relays headers named like Object.prototype's members both ways, as sent", async () => {
    // node:http keeps such names out of its header objects: a raw socket answers, and reads.
    let sent = ''
    const raw = createTcpServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        sent = chunk.toString('latin1')
        socket.end(
          'HTTP/1.1 200 OK\r\n__proto__: a\r\n__proto__: b\r\nconstructor: c\r\n' +
            'content-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
        )
      })
    })
    raw.listen(0, '127.0.0.1')
    await once(raw, 'listening')
    const r = new HttpRelay(
      `http://127.0.0.1:${(raw.address() as { port: number }).port}/mcp`,
      silentLogger,
    )
    const res = new Recorder()
    // As the tunnel hands them over: an own field named __proto__ (JSON.parse makes one).
    const headers = JSON.parse('{"content-type":"application/json","__proto__":"p"}') as Record<
      string,
      string
    >
    await r.handle(request({ headers }), res)
    await r.close()
    raw.close()
    assert.match(sent, /\r\n__proto__: p\r\n/i, "the agent's field reaches the local server")
    assert.equal(res.status, 200)
    assert.deepEqual(Object.getOwnPropertyDescriptor(res.headers, '__proto__')?.value, ['a', 'b'])
    assert.equal(res.headers.constructor, 'c')
    assert.deepEqual(
      Object.keys(res.headers).filter((name) => /^\d+$/.test(name)),
      [],
      'no fields named 0, 1…',
    )
    const named: string[] = []
    for (const name in res.headers) named.push(name)
    assert.deepEqual(named.sort(), ['__proto__', 'constructor', 'content-length', 'content-type'])
  })

  it('answers a status HTTP does not have (600–999) with a 502 naming it', async () => {
    // node:http cannot write such a status: a raw socket does, as a broken server would.
    const raw = createTcpServer((socket) => {
      socket.once('data', () =>
        socket.end(
          'HTTP/1.1 999 Odd\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
        ),
      )
    })
    raw.listen(0, '127.0.0.1')
    await once(raw, 'listening')
    const r = new HttpRelay(
      `http://127.0.0.1:${(raw.address() as { port: number }).port}/mcp`,
      silentLogger,
    )
    const res = new Recorder()
    await r.handle(request(), res)
    await r.close()
    raw.close()
    assert.deepEqual(res.heads, [502])
    assert.equal(res.headers['x-burrow-error'], 'upstream_unreachable')
    const body = JSON.parse(res.body) as { id: unknown; error: { data: { reason: string } } }
    assert.equal(body.id, 1)
    assert.match(body.error.data.reason, /answered status 999/)
    assert.ok(res.ended)
  })

  it('cuts the reply off when the upstream fails after it started (and after the answer)', async () => {
    onRequest = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')
      setTimeout(() => res.destroy(), 20)
    }
    const r = relay()
    const res = new Recorder()
    await r.handle(request(), res)
    await r.close()
    assert.equal(res.status, 200)
    assert.match(res.destroyed ?? '', /failed mid-response/)
  })
})
