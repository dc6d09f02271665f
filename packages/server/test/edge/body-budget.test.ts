/**
 * Request bodies held at once, from their first byte until their request is answered, are
 * bounded per client address and per node (`http/body-budget.ts`): the bounds themselves, and a
 * real burrowd whose public tunnel (offline: each call waits for it) is sent bodies that never
 * finish, then whole bodies. Seventeen bodies of 3.75 MiB from one address are held; the
 * eighteenth passes the 64 MiB of the address (and of the tunnel) and is refused with the
 * envelope (429, `Retry-After`), which the sender, still writing, receives; once the others are
 * gone or answered, a body as big is read again.
 */
import assert from 'node:assert/strict'
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { BodyBudget } from '../../src/http/body-budget.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
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
    service = await startService({ BURROW_LOG: 'warn' })
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
    // Let burrowd read what they sent before the next one starts.
    await new Promise((r) => setTimeout(r, 1_000))
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
    for (const h of held) h.req.destroy()
    over.req.destroy()
    await new Promise((r) => setTimeout(r, 200))

    // A whole body as big is read again: the aborted reads gave back all they took (the
    // tunnel is offline: its answer says so, with the id).
    assertRefusal(await whole(padded(5)), { policy: 'tunnel_offline', id: 5 })
  })

  it('holds a whole body until its request is answered', async () => {
    // Whole bodies wait for the offline tunnel (BURROW_QUEUE_WAIT_MS), held all that time.
    const waiting = Array.from({ length: 17 }, (_, i) => whole(padded(i + 10)))
    await new Promise((r) => setTimeout(r, 1_000))
    assertRefusal(await whole(padded(99)), { policy: 'rate_limited', id: null })
    for (const answer of await Promise.all(waiting)) {
      assert.equal(answer.status, 503, answer.text.slice(0, 200))
    }
    assertRefusal(await whole(padded(100)), { policy: 'tunnel_offline', id: 100 })
  })

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
