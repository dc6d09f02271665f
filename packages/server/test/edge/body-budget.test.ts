/**
 * Request bodies in reading at once are bounded per client address and per node
 * (`http/body-budget.ts`): the bounds themselves, and a real burrowd whose public tunnel is sent
 * bodies that never finish. Four such bodies of 3.5 MiB from one address are read; the fifth
 * passes the address's 16 MiB and is refused with the envelope (429, `Retry-After`); once the
 * others hang up, a whole body is read again.
 */
import assert from 'node:assert/strict'
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { BodyBudget } from '../../src/http/body-budget.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { hostOf, readAll } from '../helpers/edge-request.js'

describe('BodyBudget', () => {
  it('takes within both bounds and gives back what was taken', () => {
    const budget = new BodyBudget(10, 15)
    assert.ok(budget.take('a', 6))
    assert.ok(!budget.take('a', 5), 'past the address bound')
    assert.ok(budget.take('b', 9))
    assert.ok(!budget.take('c', 1), 'past the node bound')
    assert.equal(budget.total, 15)
    budget.give('a', 6)
    assert.ok(budget.take('c', 6))
    assert.equal(budget.total, 15)
    budget.give('b', 9)
    budget.give('c', 6)
    assert.equal(budget.total, 0)
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

  it('refuses the body that would pass the address’s bound, and reads again once they end', async () => {
    const held = [0, 1, 2, 3].map(() => partial(3.5 * 1024 * 1024))
    // Let burrowd read what the four sent before the fifth starts.
    await new Promise((r) => setTimeout(r, 500))
    const fifth = partial(3.5 * 1024 * 1024)
    const res = await fifth.response
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
    fifth.req.destroy()
    await new Promise((r) => setTimeout(r, 200))

    // A whole body is read again (the tunnel is offline: its answer says so, with the id).
    const body = '{"jsonrpc":"2.0","id":5,"method":"tools/list"}'
    const whole = request({
      host: '127.0.0.1',
      port: service.port,
      method: 'POST',
      path: '/mcp',
      agent: false,
      headers: {
        host,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(body.length),
      },
    })
    const answered = new Promise<IncomingMessage>((resolve) => whole.once('response', resolve))
    whole.end(body)
    const ok = await answered
    const okText = (await readAll(ok)).toString('utf8')
    assertRefusal(
      { status: ok.statusCode!, headers: ok.headers, text: okText },
      {
        policy: 'tunnel_offline',
        id: 5,
      },
    )
  })
})
