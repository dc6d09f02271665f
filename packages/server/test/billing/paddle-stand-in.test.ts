/**
 * Tests of the Paddle stand-in on its own port: it serves only under its prefix, refuses calls
 * without the API key and malformed ones as Paddle does, sends webhooks shaped and signed as
 * Paddle's, escapes what its checkout page shows, redirects only to http(s) URLs, and gives up
 * on an endpoint that never answers after a few attempts.
 */

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { RequestListener, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DEV_PADDLE_PREFIX, DEV_PRICES } from '../../src/billing/billing-config.js'
import { parsePaddleEvent } from '../../src/billing/paddle-event.js'
import { verifyPaddleSignature } from '../../src/billing/paddle-signature.js'
import { PaddleStandIn } from '../../src/billing/paddle-stand-in.js'

const KEY = 'pdl_test_standin_key'
const SECRET = 'pdl_ntfset_standin'
const T0 = new Date('2026-03-04T05:06:07.000Z')

/** The value at `path` inside parsed JSON, or undefined. */
function dig(value: unknown, ...path: (string | number)[]): unknown {
  let at = value
  for (const key of path) {
    at =
      typeof at === 'object' && at !== null
        ? (at as Record<string | number, unknown>)[key]
        : undefined
  }
  return at
}

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

describe('PaddleStandIn', () => {
  let paddle: PaddleStandIn
  let paddleServer: Server
  let hooks: Server
  let base: string
  /** Webhooks as received: the signature header and the raw body. */
  let received: { signature: string | undefined; body: Buffer }[]

  const api = (method: string, path: string, body?: unknown, key = KEY) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    }).then(async (res) => ({
      status: res.status,
      json: await res.json(),
    }))

  /** Make a customer and a transaction for Pro monthly; returns the transaction. */
  const transaction = async (email = 'ann@example.com') => {
    const customer = await api('POST', '/customers', { email })
    const txn = await api('POST', '/transactions', {
      items: [{ price_id: DEV_PRICES.pro_monthly, quantity: 1 }],
      custom_data: { account_id: 'acc_1' },
      customer_id: dig(customer.json, 'data', 'id'),
    })
    assert.equal(txn.status, 201, JSON.stringify(txn.json))
    return dig(txn.json, 'data') as { id: string; checkout: { url: string } }
  }

  beforeEach(async () => {
    received = []
    let hookUrl: string
    ;({ server: hooks, url: hookUrl } = await listen((req, res) => {
      const parts: Buffer[] = []
      req.on('data', (c: Buffer) => parts.push(c))
      req.on('end', () => {
        received.push({
          signature: req.headers['paddle-signature'] as string,
          body: Buffer.concat(parts),
        })
        res.end('{}')
      })
    }))
    paddle = new PaddleStandIn({
      apiKey: KEY,
      webhookSecret: SECRET,
      notificationUrl: `${hookUrl}/webhooks/paddle`,
      prefix: DEV_PADDLE_PREFIX,
      now: () => T0,
      retryDelaysMs: [0, 0, 0],
    })
    ;({ server: paddleServer, url: base } = await listen((req, res) => {
      if (paddle.handles(req.url ?? '/')) void paddle.handle(req, res)
      else res.writeHead(404).end('not the stand-in')
    }))
    base += DEV_PADDLE_PREFIX
  })

  afterEach(async () => {
    await paddle.idle()
    await Promise.all([close(paddleServer), close(hooks)])
  })

  it('serves only under its prefix', () => {
    assert.equal(paddle.handles('/dev/paddle/transactions'), true)
    assert.equal(paddle.handles('/dev/paddle/checkout?_ptxn=txn_1'), true)
    assert.equal(paddle.handles('/dev/paddlex'), false)
    assert.equal(paddle.handles('/api/billing'), false)
  })

  it('refuses API calls without the right key', async () => {
    for (const key of ['pdl_wrong', '']) {
      const res = await api('GET', '/subscriptions/sub_1', undefined, key)
      assert.equal(res.status, 403)
      assert.equal(dig(res.json, 'error', 'code'), 'forbidden')
    }
  })

  it('refuses malformed calls with Paddle-style errors', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/transactions', '{nope', 400, 'invalid_json'],
      ['POST', '/transactions', { items: [] }, 400, 'invalid_field'],
      [
        'POST',
        '/transactions',
        { items: [{ price_id: DEV_PRICES.pro_monthly, quantity: 2 }] },
        400,
        'invalid_field',
      ],
      ['POST', '/transactions', { items: [{ price_id: 'pri_x', quantity: 1 }] }, 404, 'not_found'],
      [
        'POST',
        '/transactions',
        { items: [{ price_id: DEV_PRICES.pro_monthly, quantity: 1 }], customer_id: 'ctm_x' },
        404,
        'not_found',
      ],
      ['POST', '/customers', { email: 7 }, 400, 'invalid_field'],
      ['DELETE', '/transactions', undefined, 404, 'not_found'],
    ]
    for (const [method, path, body, status, code] of cases) {
      const res = await api(method, path, body)
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`)
      assert.equal(dig(res.json, 'error', 'code'), code)
      assert.equal(typeof dig(res.json, 'error', 'detail'), 'string')
    }
    await api('POST', '/customers', { email: 'dup@example.com' })
    assert.equal((await api('POST', '/customers', { email: 'DUP@example.com' })).status, 409)
  })

  it("sends signed webhooks shaped like Paddle's when a checkout is paid", async () => {
    const txn = await transaction()
    const sub = await paddle.pay(txn.id)
    assert.deepEqual(
      received.map((r) => (JSON.parse(r.body.toString()) as { event_type: string }).event_type),
      ['transaction.completed', 'subscription.created', 'subscription.activated'],
    )
    for (const { signature, body } of received) {
      assert.deepEqual(verifyPaddleSignature(signature, body, [SECRET], T0.getTime() / 1000), {
        ok: true,
      })
      const json = JSON.parse(body.toString()) as Record<string, unknown>
      assert.match(String(json.event_id), /^evt_[0-9a-f]{26}$/)
      assert.match(String(json.notification_id), /^ntf_[0-9a-f]{26}$/)
      assert.equal(json.occurred_at, T0.toISOString())
    }
    const created = parsePaddleEvent(received[1]!.body)
    assert.deepEqual(created.subscription, {
      id: sub.id,
      customerId: sub.customerId,
      status: 'active',
      priceIds: [DEV_PRICES.pro_monthly],
      customData: { account_id: 'acc_1' },
      currentPeriodEndsAt: new Date('2026-04-04T05:06:07.000Z'),
      scheduledChange: null,
      updatedAt: T0,
      updatedAtMicros: T0.getTime() * 1000,
    })
    const data = dig(JSON.parse(received[1]!.body.toString()), 'data')
    assert.equal(dig(data, 'next_billed_at'), '2026-04-04T05:06:07.000Z')
    assert.deepEqual(dig(data, 'billing_cycle'), { interval: 'month', frequency: 1 })
    assert.equal(dig(data, 'items', 0, 'price', 'unit_price', 'amount'), '1200')

    // Cancel at period end: a scheduled change, then canceled at the end.
    const cancelled = await api('POST', `/subscriptions/${sub.id}/cancel`, {
      effective_from: 'next_billing_period',
    })
    assert.deepEqual(dig(cancelled.json, 'data', 'scheduled_change'), {
      action: 'cancel',
      effective_at: '2026-04-04T05:06:07.000Z',
      resume_at: null,
    })
    assert.equal(dig(cancelled.json, 'data', 'next_billed_at'), null)
    await paddle.endPeriod(sub.id)
    const last = parsePaddleEvent(received.at(-1)!.body)
    assert.equal(last.eventType, 'subscription.canceled')
    assert.equal(last.subscription?.status, 'canceled')
    assert.equal(last.subscription?.currentPeriodEndsAt, null)

    const locked = await api('PATCH', `/subscriptions/${sub.id}`, { scheduled_change: null })
    assert.equal(locked.status, 400)
    assert.equal(dig(locked.json, 'error', 'code'), 'subscription_update_when_canceled')
  })

  it('requires a proration mode to change items, and cancels immediately when asked', async () => {
    const sub = await paddle.pay((await transaction()).id)
    const noMode = await api('PATCH', `/subscriptions/${sub.id}`, {
      items: [{ price_id: DEV_PRICES.scale_monthly, quantity: 1 }],
    })
    assert.equal(noMode.status, 400)
    assert.match(String(dig(noMode.json, 'error', 'detail')), /proration_billing_mode/)
    const now = await api('POST', `/subscriptions/${sub.id}/cancel`, {
      effective_from: 'immediately',
    })
    assert.equal(dig(now.json, 'data', 'status'), 'canceled')
    await paddle.idle()
    assert.equal(parsePaddleEvent(received.at(-1)!.body).eventType, 'subscription.canceled')
  })

  it('previews a change without making it, and refuses bad previews', async () => {
    const sub = await paddle.pay((await transaction()).id)
    const item = [{ price_id: DEV_PRICES.scale_monthly, quantity: 1 }]
    const preview = await api('PATCH', `/subscriptions/${sub.id}/preview`, {
      items: item,
      proration_billing_mode: 'prorated_immediately',
    })
    assert.equal(preview.status, 200, JSON.stringify(preview.json))
    assert.equal(dig(preview.json, 'data', 'update_summary', 'result', 'action'), 'charge')
    assert.match(String(dig(preview.json, 'data', 'update_summary', 'result', 'amount')), /^\d+$/)
    assert.equal(paddle.subscriptions.get(sub.id)?.price.id, sub.price.id, 'nothing changed')
    assert.equal(paddle.prorations.length, 0)
    for (const [body, status, detail] of [
      [{ items: item }, 400, /proration_billing_mode/],
      [{ proration_billing_mode: 'prorated_immediately' }, 400, /items/],
      [
        {
          items: [{ price_id: 'pri_nope', quantity: 1 }],
          proration_billing_mode: 'prorated_immediately',
        },
        404,
        /pri_nope/,
      ],
      [
        { items: [...item, ...item], proration_billing_mode: 'prorated_immediately' },
        400,
        /exactly one/,
      ],
      ['not an object', 400, /JSON/],
    ] as const) {
      const refused = await api('PATCH', `/subscriptions/${sub.id}/preview`, body)
      assert.equal(refused.status, status, JSON.stringify(body))
      assert.match(String(dig(refused.json, 'error', 'detail')), detail)
    }
    const unknown = await api('PATCH', '/subscriptions/sub_nope/preview', {
      items: item,
      proration_billing_mode: 'prorated_immediately',
    })
    assert.equal(unknown.status, 404)
    await api('POST', `/subscriptions/${sub.id}/cancel`, { effective_from: 'immediately' })
    const canceled = await api('PATCH', `/subscriptions/${sub.id}/preview`, {
      items: item,
      proration_billing_mode: 'prorated_immediately',
    })
    assert.equal(canceled.status, 400)
    assert.equal(dig(canceled.json, 'error', 'code'), 'subscription_update_when_canceled')
  })

  it('escapes what the checkout page shows and sends the browser only to http(s) URLs', async () => {
    const txn = await transaction('"<b>x</b>"@example.com')
    const page = await fetch(
      `${txn.checkout.url}&success_url=${encodeURIComponent('javascript:alert(1)')}`,
    )
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/)
    const html = await page.text()
    assert.ok(html.includes('&quot;&lt;b&gt;x&lt;/b&gt;&quot;@example.com'), 'email escaped')
    assert.ok(!html.includes('<b>x</b>'))
    assert.ok(!html.includes('success_url'), 'a javascript: URL is not carried')

    const paid = await fetch(`${base}/checkout/pay`, {
      method: 'POST',
      body: new URLSearchParams({ _ptxn: txn.id, success_url: 'javascript:alert(1)' }),
      redirect: 'manual',
    })
    assert.equal(paid.status, 200)
    assert.match(await paid.text(), /Payment complete/)
  })

  it('returns the browser only to its own host or the configured origins (no open redirect)', async () => {
    const txn = await transaction('buyer@example.com')
    const evil = 'https://evil.example/phish'
    const page = await (
      await fetch(`${txn.checkout.url}&success_url=${encodeURIComponent(evil)}`)
    ).text()
    assert.ok(!page.includes('evil.example'), 'a foreign success_url is not carried')
    const foreign = await fetch(`${base}/checkout/pay`, {
      method: 'POST',
      body: new URLSearchParams({ _ptxn: txn.id, success_url: evil }),
      redirect: 'manual',
    })
    assert.equal(foreign.status, 200)
    assert.match(await foreign.text(), /Payment complete/)
    const other = await transaction('buyer2@example.com')
    const home = `${base}/done?x=1`
    const back = await fetch(`${base}/checkout/pay`, {
      method: 'POST',
      body: new URLSearchParams({ _ptxn: other.id, success_url: home }),
      redirect: 'manual',
    })
    assert.equal(back.status, 303)
    assert.equal(back.headers.get('location'), home)
  })

  it('answers 404 for a checkout that names no transaction', async () => {
    assert.equal((await fetch(`${base}/checkout?_ptxn=txn_nope`)).status, 404)
    const pay = await fetch(`${base}/checkout/pay`, {
      method: 'POST',
      body: new URLSearchParams({ _ptxn: 'txn_nope' }),
    })
    assert.equal(pay.status, 404)
  })

  it('gives up on an endpoint that never takes a webhook, after a few attempts', async () => {
    const { server: gone, url } = await listen(() => {})
    await close(gone)
    const lonely = new PaddleStandIn({
      apiKey: KEY,
      webhookSecret: SECRET,
      notificationUrl: `${url}/webhooks/paddle`,
      now: () => T0,
      retryDelaysMs: [0, 0, 0],
    })
    const txn = lonely.addTransaction({
      price: lonely.prices.get(DEV_PRICES.scale_annual)!,
      customerId: null,
      customData: { account_id: 'acc_1' },
      base: 'http://stand-in.test',
    })
    await lonely.pay(txn.id)
    assert.equal(lonely.webhooks.length, 3)
    for (const sent of lonely.webhooks) {
      assert.equal(sent.attempts, 4)
      assert.equal(sent.delivered, false)
      assert.equal(sent.lastStatus, 0)
    }
  })
})
