// Pipelined requests run one at a time, each once the answers before it are done; those still
// waiting when the client hangs up never run; a connection queueing too many is closed.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { answerClientError } from '../../src/http/answer-client-error.js'
import { inTurn, MAX_QUEUED_PER_CONNECTION } from '../../src/http/in-turn.js'

describe('inTurn', { timeout: 30_000 }, () => {
  let server: Server
  let port: number
  /** Paths whose handler ran, in order, and the answers held open by path. */
  const ran: string[] = []
  const held = new Map<string, ServerResponse>()
  let onRun = (_path: string): void => {}

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      inTurn(req, res, () => {
        const path = req.url ?? ''
        ran.push(path)
        onRun(path)
        // Read the body whole, then answer, unless the path asks to be held.
        req.resume()
        req.once('end', () => {
          if (path.startsWith('/hold')) held.set(path, res)
          else res.end(`answer ${path}`)
        })
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })

  after(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const open = async (): Promise<{ socket: Socket; text: () => string }> => {
    const socket = connect({ port, host: '127.0.0.1' })
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    return { socket, text: () => text }
  }
  const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`
  const post = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`
  const ranPath = (path: string) =>
    ran.includes(path)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const before = onRun
          onRun = (p) => {
            before(p)
            if (p === path) resolve()
          }
        })

  it('runs a pipelined request once the answer before it is done', async () => {
    const c = await open()
    c.socket.write(get('/hold-1') + post('/after-1', 'body') + get('/after-2'))
    await ranPath('/hold-1')
    // The next request was parsed (its head is in the same write) but has not run.
    await new Promise((resolve) => setImmediate(resolve))
    assert.ok(!ran.includes('/after-1'), 'not run while the answer before it is open')
    held.get('/hold-1')!.end('held answer')
    await ranPath('/after-2')
    assert.deepEqual(
      ran.filter((p) => ['/hold-1', '/after-1', '/after-2'].includes(p)),
      ['/hold-1', '/after-1', '/after-2'],
    )
    while (!c.text().includes('answer /after-2')) await new Promise((r) => setTimeout(r, 10))
    assert.match(c.text(), /held answer[\s\S]*answer \/after-1[\s\S]*answer \/after-2/)
    c.socket.destroy()
  })

  it('never runs the requests still waiting when the client hangs up', async () => {
    // Found by a hostile review: Node runs every pipelined request at once, and those whose
    // answers were still queued when the client hung up never emitted `close`, so what their
    // handlers took was never given back.
    const c = await open()
    const waiting = Array.from({ length: 5 }, (_, i) => post(`/never-${i}`, 'x'.repeat(100)))
    c.socket.write(get('/hold-2') + waiting.join(''))
    await ranPath('/hold-2')
    const answer = held.get('/hold-2')!
    const closed = new Promise((resolve) => answer.once('close', resolve))
    c.socket.destroy()
    await closed
    // Another connection's request, run after the hang-up was handled.
    const d = await open()
    d.socket.write(get('/later'))
    await ranPath('/later')
    d.socket.destroy()
    assert.deepEqual(
      ran.filter((p) => p.startsWith('/never-')),
      [],
    )
  })

  it('closes a connection that queues more than the bound', async () => {
    const c = await open()
    const closed = new Promise((resolve) => c.socket.once('close', resolve))
    const many = Array.from({ length: MAX_QUEUED_PER_CONNECTION + 1 }, (_, i) => get(`/q-${i}`))
    c.socket.write(get('/hold-3') + many.join(''))
    await closed
    assert.deepEqual(
      ran.filter((p) => p.startsWith('/q-')),
      [],
    )
  })
})

describe('inTurn with the request timeout', { timeout: 30_000 }, () => {
  it('closes the connection rather than answer a waiting request into the answer before it', async () => {
    // Found by a review: a waiting request's body is not read, so it cannot arrive within the
    // request timeout, and Node's 400 for it was written as the answer of the request before.
    const held: ServerResponse[] = []
    const server = createServer(
      { headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 },
      (req, res) => inTurn(req, res, () => held.push(res)),
    )
    server.on('clientError', answerClientError)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port: at } = server.address() as AddressInfo
    const socket = connect({ port: at, host: '127.0.0.1' })
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('error', () => {})
    const closed = new Promise((resolve) => socket.once('close', resolve))
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      'GET /hold HTTP/1.1\r\nHost: x\r\n\r\n' +
        `POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(40_000)}`,
    )
    await closed
    assert.equal(text, '', 'nothing written into the held answer')
    assert.equal(held.length, 1, 'the waiting request never ran')
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
})
