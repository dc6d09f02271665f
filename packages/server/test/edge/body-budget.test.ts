/**
 * Request bodies held at once, from their first byte until their request is answered, are
 * bounded per client address and per node (`http/body-budget.ts`): the bounds themselves, and a
 * real burrowd whose public tunnel (offline: each call waits for it) is sent bodies that never
 * finish, then whole bodies. Seventeen bodies of 3.75 MiB from one address are held; the
 * eighteenth passes the 64 MiB of the address (and of the tunnel) and is refused with the
 * envelope (429, `Retry-After`), which the sender, still writing, receives, and the rest of its
 * body is read before the connection closes; once the others are gone or answered, a body as big
 * is read again.
 */
import assert from 'node:assert/strict'
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { BodyBudget } from '../../src/http/body-budget.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { parsePrometheus } from '../helpers/parse-prometheus.js'
import { edgeRequest, hostOf, readAll } from '../helpers/edge-request.js'

describe('BodyBudget', () => {
  it('takes within every bound (address, tunnel, node) and gives back what was taken', () => {
    const budget = new BodyBudget({ perAddress: 10, perTunnel: 12, perNode: 20 })
    const a1 = { address: 'a', tunnel: 't1' }
    assert.ok(budget.take(a1, 6))
    assert.ok(!budget.take(a1, 5), 'past the address bound')
    assert.ok(budget.take({ address: 'b', tunnel: 't1' }, 6))
    assert.ok(!budget.take({ address: 'c', tunnel: 't1' }, 1), 'past the tunnel bound')
    assert.ok(budget.take({ address: 'c', tunnel: 't2' }, 8))
    assert.ok(!budget.take({ address: 'd', tunnel: 't3' }, 1), 'past the node bound')
    assert.equal(budget.total, 20)
    budget.give(a1, 6)
    assert.ok(budget.take({ address: 'd', tunnel: 't1' }, 6))
    budget.give({ address: 'b', tunnel: 't1' }, 6)
    budget.give({ address: 'c', tunnel: 't2' }, 8)
    budget.give({ address: 'd', tunnel: 't1' }, 6)
    assert.equal(budget.total, 0)
    assert.ok(budget.take({ address: 'a', tunnel: 't1' }, 10), 'nothing left taken')
  })
})

describe('request bodies that never finish, against a real burrowd', { timeout: 60_000 }, () => {
  let service: Service
  let host: string

  before(async () => {
    // Long enough for 17 bodies to be read and held on a busy machine before the first is answered.
    service = await startService({ BURROW_LOG: 'warn', BURROW_QUEUE_WAIT_MS: '8000' })
    host = hostOf((await service.tunnel('bodies')).publicUrl)
  })
  after(async () => service?.close())

  /** A POST declaring 4 MiB that sends `bytes` of it and waits. */
  function partial(bytes: number): { req: ClientRequest; response: Promise<IncomingMessage> } {
    const req = request({
      host: '127.0.0.1',
      port: service.port,
      method: 'POST',
      path: '/mcp',
      agent: false,
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(4 * 1024 * 1024),
      },
    })
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve)
      req.once('error', reject)
    })
    response.catch(() => {})
    req.write(Buffer.alloc(bytes, 0x20))
    return { req, response }
  }

  const PART = 3.75 * 1024 * 1024
  /** A call whose body is PART bytes. */
  const padded = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"pad":"${' '.repeat(PART - 80)}"}}`

  it('refuses the body that would pass the address’s bound, and reads again once they end', async () => {
    const held = Array.from({ length: 17 }, () => partial(PART))
    await bodiesHeld(17 * PART)
    const over = partial(PART)
    const res = await over.response
    const text = (await readAll(res).catch(() => Buffer.alloc(0))).toString('utf8')
    assertRefusal(
      { status: res.statusCode!, headers: res.headers, text },
      {
        policy: 'rate_limited',
        id: null,
      },
    )
    assert.equal(res.headers['retry-after'], '1')
    over.req.destroy()
    // A sender that reads the answer and writes on, on a connection it asked to close: burrowd
    // reads the rest of the body before it closes, so none of those writes is reset.
    await sendsTheRestAfterItsAnswer()
    for (const h of held) h.req.destroy()
    await new Promise((r) => setTimeout(r, 200))

    // A whole body as big is read again: the aborted reads gave back all they took (the
    // tunnel is offline: its answer says so, with the id).
    assertRefusal(await whole(padded(5)), { policy: 'tunnel_offline', id: 5 })
  })

  it('holds a whole body until its request is answered', async () => {
    // Whole bodies wait for the offline tunnel (BURROW_QUEUE_WAIT_MS), held all that time.
    const waiting = Array.from({ length: 17 }, (_, i) => whole(padded(i + 10)))
    await bodiesHeld(17 * (PART - 80)) // each a little shorter than PART
    assertRefusal(await whole(padded(99)), { policy: 'rate_limited', id: null })
    for (const answer of await Promise.all(waiting)) {
      assert.equal(answer.status, 503, answer.text.slice(0, 200))
    }
    assertRefusal(await whole(padded(100)), { policy: 'tunnel_offline', id: 100 })
  })

  /**
   * Over a raw connection (`Connection: close`), send the head and 3.75 of 4 MiB, read the whole
   * 429, then send the rest in four writes apart in time: burrowd ends the connection only after
   * the last of them (no end seen before it, no reset after it).
   */
  async function sendsTheRestAfterItsAnswer(): Promise<void> {
    const socket = connect(service.port, '127.0.0.1')
    const events: string[] = []
    let received = ''
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => (received += d))
    socket.on('error', (e) => events.push(`error ${(e as NodeJS.ErrnoException).code}`))
    const ended = new Promise((r) => socket.once('end', () => r(events.push('end'))))
    await new Promise((r) => socket.once('connect', r))
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `Content-Length: ${4 * 1024 * 1024}\r\n\r\n`,
    )
    socket.write(Buffer.alloc(PART, 0x20))
    while (!/\r\n\r\n\{.*\}$/s.test(received)) await new Promise((r) => setTimeout(r, 20))
    assert.match(received, /^HTTP\/1\.1 429 /)
    const rest = Buffer.alloc(4 * 1024 * 1024 - PART, 0x20)
    const quarter = rest.length / 4
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 50))
      events.push('write')
      socket.write(rest.subarray(i * quarter, (i + 1) * quarter))
    }
    await ended
    socket.destroy()
    assert.deepEqual(events, ['write', 'write', 'write', 'write', 'end'])
  }

  /** Wait until burrowd's metrics say it holds `bytes` of request bodies (or more). */
  async function bodiesHeld(bytes: number): Promise<void> {
    let held = 0
    for (let tries = 0; tries < 300; tries++) {
      const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text()
      const family = parsePrometheus(text).find((f) => f.name === 'burrowd_edge_request_body_bytes')
      held = Number(family?.metrics[0]?.value ?? 0)
      if (held >= bytes) return
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.fail(`burrowd holds ${held} bytes of bodies, not ${bytes}`)
  }

  /** POST `body` whole; the answer once complete. */
  const whole = (body: string) =>
    edgeRequest(service.port, host, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    })
})
