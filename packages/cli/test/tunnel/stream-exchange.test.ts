// A tunnel stream seen as a LocalRequest/LocalResponse: small replies leave as one frame, big
// ones stream, request bodies arrive whole, and a reset aborts the request's signal.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RESET_CODE } from '@burrow/protocol'
import type { LocalRequest, LocalResponse } from '../../src/relay/local-exchange.js'
import { streamExchange } from '../../src/tunnel/stream-exchange.js'
import { muxPair } from '../helpers/mux-pair.js'

function pair(handler: (req: LocalRequest, res: LocalResponse, sent: () => Promise<void>) => void) {
  return muxPair((stream, head, body, fin) => streamExchange(stream, head, body, fin, handler))
}

const head = {
  method: 'POST',
  path: '/mcp',
  headers: [['content-type', 'application/json']] as [string, string][],
}

describe('streamExchange', () => {
  it('a small reply written in one go is a single RESPONSE frame with FIN', async () => {
    const p = pair((req, res) => {
      assert.equal(Buffer.from(req.body).toString(), '{"id":1}')
      assert.equal(req.headers['content-type'], 'application/json')
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(Buffer.from('{"ok":true}'))
      res.end()
    })
    p.broker.open(head, Buffer.from('{"id":1}'), true)
    await p.flush()
    assert.equal(p.fromClient.length, 1)
    const f = p.fromClient[0]!
    assert.equal(f.type, 'response')
    assert.ok(f.type === 'response' && f.fin && Buffer.from(f.body!).toString() === '{"ok":true}')
  })

  it("headers named like Object.prototype's members reach the handler as sent", async () => {
    let got: Readonly<Record<string, string>> = {}
    const p = pair((req, res) => {
      got = req.headers
      res.writeHead(204, {})
      res.end()
    })
    p.broker.open(
      {
        method: 'POST',
        path: '/mcp',
        headers: [
          ['constructor', 'a'],
          ['__proto__', 'p'],
          ['__proto__', 'q'],
          ['x-twice', '1'],
          ['x-twice', '2'],
        ],
      },
      Buffer.from('{}'),
      true,
    )
    await p.flush()
    assert.equal(got.constructor, 'a')
    assert.ok(Object.hasOwn(got, '__proto__'), "an agent's __proto__ header is a field too")
    assert.equal(Object.getOwnPropertyDescriptor(got, '__proto__')?.value, 'p, q')
    assert.equal(got['x-twice'], '1, 2')
  })

  it('a big reply streams as DATA after the head', async () => {
    const p = pair((_req, res) => {
      res.writeHead(200, {})
      res.write(Buffer.alloc(200 * 1024))
      res.end()
    })
    p.broker.open(head, Buffer.from('{}'), true)
    await p.flush()
    const types = p.fromClient.map((f) => f.type)
    assert.equal(types[0], 'response')
    assert.ok(types.filter((t) => t === 'data').length >= 4)
  })

  it('a request body sent as DATA reaches the handler whole', async () => {
    let got = 0
    const p = pair((req, res) => {
      got = req.body.length
      res.writeHead(202, {})
      res.end()
    })
    const s = p.broker.open(head, undefined, false)
    s.write(Buffer.alloc(100_000, 1))
    s.end()
    await p.flush()
    assert.equal(got, 100_000)
  })

  it('a reset from the broker aborts the request signal', async () => {
    let signal: AbortSignal | undefined
    const p = pair((req) => void (signal = req.signal))
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    await p.flush()
    assert.equal(signal?.aborted, false)
    s.reset(RESET_CODE.cancel, 'agent left')
    await p.flush()
    assert.equal(signal?.aborted, true)
  })

  it('a streamed reply counts as sent only once its last DATA went to the tunnel', async () => {
    const events: string[] = []
    const p = pair(async (_req, res, sent) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      // The head leaves on its own; the body streams, as from a local SSE reply.
      await new Promise((r) => setImmediate(r))
      res.write(Buffer.from('event: message\ndata: {}\n\n'))
      res.end()
      events.push(`handler done, last frame ${p.fromClient[p.fromClient.length - 1]?.type}`)
      void sent().then(() => {
        const last = p.fromClient[p.fromClient.length - 1]
        events.push(`sent, last frame ${last?.type} fin=${last && 'fin' in last && last.fin}`)
      })
    })
    p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    await p.flush()
    assert.deepEqual(events, [
      'handler done, last frame response',
      'sent, last frame data fin=true',
    ])
  })

  it('a reset stream counts as sent (nothing more will leave)', async () => {
    let sentSettled = false
    const p = pair((_req, res, sent) => {
      res.writeHead(200, {})
      res.write(Buffer.alloc(10))
      void sent().then(() => (sentSettled = true))
    })
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    await p.flush()
    assert.equal(sentSettled, false, 'the response has not ended yet')
    s.reset(RESET_CODE.cancel, 'agent left')
    await p.flush()
    assert.equal(sentSettled, true)
  })

  it('a head that cannot cross the tunnel is refused and aborts the request', async () => {
    const reasons: string[] = []
    let writable: boolean | undefined
    const p = pair((req, res) => {
      req.onAbort?.((reason) => reasons.push(reason.message))
      const headers: Record<string, string> = { 'content-type': 'text/event-stream' }
      for (let i = 0; i < 300; i++) headers[`x-h${i}`] = 'v'
      res.writeHead(200, headers)
      // An SSE answer that goes on: its handler must learn that nothing takes it any more, or
      // it would read its local server's stream for as long as that runs.
      queueMicrotask(() => void (writable = res.write(Buffer.from(': ping\n\n'))))
    })
    p.broker.open(head, Buffer.from('{"jsonrpc":"2.0","id":9,"method":"ping"}'), true)
    await p.flush()
    const f = p.fromClient[0]!
    assert.ok(f.type === 'response' && f.head.status === 502 && f.fin)
    assert.equal(writable, false)
    assert.equal(reasons.length, 1, 'the request was aborted')
    assert.match(reasons[0]!, /cannot cross the tunnel|carries 301 headers/)
  })

  it('a reset reaches onAbort listeners, and a signal read afterwards is already aborted', async () => {
    let req: LocalRequest | undefined
    const reasons: string[] = []
    const p = pair((r) => {
      req = r
      r.onAbort?.((reason) => reasons.push(reason.message))
    })
    const s = p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    await p.flush()
    assert.equal(typeof req?.onAbort, 'function', 'tunnel requests offer onAbort')
    s.reset(RESET_CODE.cancel, 'agent left')
    await p.flush()
    assert.deepEqual(reasons, ['agent left'])
    assert.equal(req?.signal.aborted, true)
    const late: string[] = []
    req?.onAbort?.((reason) => late.push(reason.message))
    assert.deepEqual(late, ['agent left'], 'a listener added after the abort runs at once')
  })
})
