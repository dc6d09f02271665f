/**
 * Tests of one delivery attempt against a real receiver on 127.0.0.1: how each kind of answer
 * (2xx, 410, other statuses, no answer, a refused address, an abort) is classified, and that the
 * request goes out exactly as given.
 */

import assert from 'node:assert/strict'
import { createServer, type AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { MAX_INFORMATIONAL } from '../../src/webhooks/informational-limit.js'
import { postWebhook } from '../../src/webhooks/post-webhook.js'
import type { PostWebhookRequest } from '../../src/webhooks/post-webhook.js'
import { SHARED_ASKER } from '../../src/webhooks/system-resolve.js'
import { UrlGuard } from '../../src/webhooks/url-guard.js'
import { startWebhookReceiver } from '../helpers/webhook-receiver.js'
import type { WebhookReceiver } from '../helpers/webhook-receiver.js'

describe('postWebhook', () => {
  let receiver: WebhookReceiver
  const allowing = new UrlGuard({ allowPrivate: true })
  const refusing = new UrlGuard({ allowPrivate: false })
  const now = new Date('2026-03-04T05:06:07Z')

  before(async () => {
    receiver = await startWebhookReceiver()
  })
  after(async () => {
    await allowing.close()
    await refusing.close()
    await receiver.close()
  })

  const send = (overrides: Partial<PostWebhookRequest> = {}) =>
    postWebhook({
      guard: allowing,
      url: receiver.url,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: '{"a":"ü"}',
      timeoutMs: 10_000,
      now,
      ...overrides,
    })

  it('sends the body and headers as given and calls any 2xx delivered', async () => {
    receiver.respond({ status: 204 })
    assert.deepEqual(await send(), { kind: 'delivered', status: 204 })
    const request = receiver.received.at(-1)
    assert.equal(request?.body, '{"a":"ü"}')
    assert.equal(request?.headers['webhook-id'], 'msg_1')
  })

  it("looks the receiver's name up in the asker's turn, through a dispatcher of its own", async () => {
    const askers: (string | undefined)[] = []
    const guard = new UrlGuard({
      allowPrivate: true,
      resolve: async (_hostname, who) => {
        askers.push(who)
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    try {
      const port = new URL(receiver.url).port
      const url = `http://hooks.example.test:${port}/`
      receiver.respond({ status: 204 }, { status: 204 })
      assert.deepEqual(await send({ guard, url, asker: 'account a' }), {
        kind: 'delivered',
        status: 204,
      })
      assert.deepEqual(await send({ guard, url }), { kind: 'delivered', status: 204 })
      assert.deepEqual(askers, ['account a', SHARED_ASKER])
    } finally {
      await guard.close()
    }
  })

  it('calls 410 gone and other statuses failed, with Retry-After only on 429 and 503', async () => {
    receiver.respond(
      { status: 410 },
      { status: 429, headers: { 'retry-after': '30' } },
      { status: 500, headers: { 'retry-after': '30' } },
      { status: 503, headers: { 'retry-after': 'Wed, 04 Mar 2026 05:07:07 GMT' } },
    )
    assert.deepEqual(await send(), { kind: 'gone', status: 410, error: 'HTTP 410' })
    assert.deepEqual(await send(), {
      kind: 'failed',
      status: 429,
      error: 'HTTP 429',
      retryAfterMs: 30_000,
    })
    assert.deepEqual(await send(), {
      kind: 'failed',
      status: 500,
      error: 'HTTP 500',
      retryAfterMs: null,
    })
    assert.deepEqual(await send(), {
      kind: 'failed',
      status: 503,
      error: 'HTTP 503',
      retryAfterMs: 60_000,
    })
  })

  it('refuses a private literal before connecting', async () => {
    const count = receiver.received.length
    const outcome = await send({ guard: refusing })
    assert.equal(outcome.kind, 'failed')
    assert.equal(outcome.status, null)
    assert.match(
      outcome.kind === 'failed' ? outcome.error : '',
      /^refused: 127\.0\.0\.1 is a loopback address/,
    )
    const v6 = await send({ guard: refusing, url: `http://[::ffff:7f00:1]:${receiver.port}/hooks` })
    assert.match(
      v6.kind === 'failed' ? v6.error : '',
      /^refused: ::ffff:7f00:1 is a loopback address/,
    )
    assert.equal(receiver.received.length, count)
  })

  it('hostile: gives up on a receiver that sends interim answers without end', async () => {
    // `103 Early Hints` over and over, never the answer: each one undici parsed and read on.
    let written = 0
    const flood = createServer((socket) => {
      socket.on('error', () => {})
      socket.once('data', () => {
        const more = () => {
          if (socket.destroyed) return
          written++
          socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n', () =>
            setImmediate(more),
          )
        }
        more()
      })
    })
    await new Promise<void>((r) => flood.listen(0, '127.0.0.1', r))
    try {
      const port = (flood.address() as AddressInfo).port
      const outcome = await send({ url: `http://127.0.0.1:${port}/hooks`, timeoutMs: 30_000 })
      assert.deepEqual(outcome, {
        kind: 'failed',
        status: null,
        error: `more than ${MAX_INFORMATIONAL} interim (1xx) answers before the answer`,
        retryAfterMs: null,
      })
      assert.ok(written > MAX_INFORMATIONAL)
    } finally {
      flood.close()
    }
  })

  it('reports an abort with its reason', async () => {
    receiver.respond('hang')
    const controller = new AbortController()
    const outcome = send({ signal: controller.signal })
    await receiver.waitFor(receiver.received.length + 1)
    controller.abort(new Error('burrowd is stopping'))
    assert.deepEqual(await outcome, {
      kind: 'failed',
      status: null,
      error: 'could not send: burrowd is stopping',
      retryAfterMs: null,
      detail: 'could not send: burrowd is stopping',
    })
  })
})
