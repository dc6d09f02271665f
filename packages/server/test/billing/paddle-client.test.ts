/**
 * Tests of the Paddle API client against the stand-in on a real port (mounted under a prefix,
 * as burrowd mounts it) and against servers that misbehave: every failure becomes a
 * PaddleApiError that names the call and says what to check.
 */

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { RequestListener, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { DEV_PADDLE_PREFIX } from '../../src/billing/billing-config.js'
import { PaddleApiError, PaddleClient } from '../../src/billing/paddle-client.js'
import { PaddleStandIn } from '../../src/billing/paddle-stand-in.js'
import { TEST_PRICES } from '../helpers/paddle-events.js'

const KEY = 'pdl_test_client_key'

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

async function failsWith(
  promise: Promise<unknown>,
  status: number,
  code: string,
  fragment: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PaddleApiError, `expected PaddleApiError, got ${String(error)}`)
    assert.equal(error.status, status)
    assert.equal(error.code, code)
    assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`)
    return true
  })
}

describe('PaddleClient', () => {
  let paddle: PaddleStandIn
  let server: Server
  let apiUrl: string
  let client: PaddleClient

  before(async () => {
    paddle = new PaddleStandIn({
      apiKey: KEY,
      webhookSecret: 'pdl_ntfset_unused',
      // Nothing listens here; these tests do not pay, so no webhook is sent.
      notificationUrl: 'http://127.0.0.1:9/webhooks/paddle',
      prices: TEST_PRICES,
      prefix: DEV_PADDLE_PREFIX,
    })
    ;({ server, url: apiUrl } = await listen((req, res) => void paddle.handle(req, res)))
    apiUrl += DEV_PADDLE_PREFIX
    client = new PaddleClient({ apiUrl: apiUrl + '/', apiKey: KEY })
  })

  after(async () => {
    await close(server)
  })

  it('finds or makes a customer by email, once', async () => {
    const first = await client.findOrCreateCustomer('ann@example.com')
    assert.match(first, /^ctm_/)
    assert.equal(await client.findOrCreateCustomer('ann@example.com'), first)
    assert.equal(paddle.customers.size, 1)
  })

  it('makes a checkout transaction carrying the account id', async () => {
    const txn = await client.createTransaction({
      priceId: TEST_PRICES.scale_annual,
      accountId: 'acc_1',
      customerId: null,
    })
    assert.match(txn.id, /^txn_/)
    assert.equal(txn.status, 'draft')
    assert.equal(txn.checkoutUrl, `${apiUrl}/checkout?_ptxn=${txn.id}`)
    assert.deepEqual(paddle.transactions.get(txn.id)?.customData, { account_id: 'acc_1' })
  })

  it("reports Paddle's error code and detail for a refused call", async () => {
    await failsWith(
      client.createTransaction({ priceId: 'pri_nope', accountId: 'acc_1' }),
      404,
      'not_found',
      'POST /transactions answered 404 not_found: price pri_nope not found',
    )
    await failsWith(client.getSubscription('sub_nope'), 404, 'not_found', 'subscription sub_nope')
    await failsWith(client.cancelSubscription('sub_nope'), 404, 'not_found', '/cancel')
  })

  it('says to check the API key when it is refused', async () => {
    const wrong = new PaddleClient({ apiUrl, apiKey: 'pdl_wrong' })
    await failsWith(wrong.getSubscription('sub_1'), 403, 'forbidden', 'check BURROW_PADDLE_API_KEY')
  })

  it('says to check the URL when Paddle cannot be reached', async () => {
    const { server: gone, url } = await listen(() => {})
    await close(gone)
    const unreachable = new PaddleClient({ apiUrl: url, apiKey: KEY })
    await failsWith(
      unreachable.getSubscription('sub_1'),
      0,
      'unreachable',
      'check BURROW_PADDLE_API_URL',
    )
  })

  it('gives up on a call that gets no answer in time', async () => {
    const { server: silent, url } = await listen(() => {})
    try {
      const slow = new PaddleClient({ apiUrl: url, apiKey: KEY, timeoutMs: 100 })
      await failsWith(slow.getSubscription('sub_1'), 0, 'unreachable', 'no answer in time')
    } finally {
      await close(silent)
    }
  })

  it('refuses answers that are not what Paddle sends', async () => {
    const { server: odd, url } = await listen((req, res) => {
      if (req.url?.startsWith('/subscriptions/html')) res.end('<html>hello</html>')
      else if (req.url?.startsWith('/subscriptions/broken')) res.writeHead(502).end('bad gateway')
      else res.end(JSON.stringify({ data: { id: 'sub_1', status: 'exploded' } }))
    })
    try {
      const c = new PaddleClient({ apiUrl: url, apiKey: KEY })
      await failsWith(c.getSubscription('html'), 0, 'bad_response', 'not JSON')
      await failsWith(c.getSubscription('broken'), 502, 'http_502', 'bad gateway')
      await failsWith(c.getSubscription('odd'), 0, 'bad_response', 'data.status')
    } finally {
      await close(odd)
    }
  })
})
