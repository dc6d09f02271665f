/**
 * Tests of `signWebhook` against the `standardwebhooks` library receivers use: its `verify`
 * accepts our headers, rejects them when anything signed is changed, and its own `sign` gives the
 * same value for the same input.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { newWebhookSecret } from '../../src/webhooks/webhook-secret.js'
import { signWebhook } from '../../src/webhooks/webhook-signature.js'

const BODY =
  '{"type":"quota.warning","timestamp":"2026-03-04T05:06:07.000Z","data":{"name":"ünï ✓"}}'

function headers(id: string, timestamp: number, signature: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  }
}

describe('signWebhook', () => {
  it('is verified by the standardwebhooks library', () => {
    const secret = newWebhookSecret()
    const now = Math.floor(Date.now() / 1000)
    const signature = signWebhook(secret, 'msg_abc', now, BODY)
    assert.match(signature, /^v1,[A-Za-z0-9+/]{43}=$/)
    const payload = new Webhook(secret).verify(BODY, headers('msg_abc', now, signature))
    assert.deepEqual(payload, JSON.parse(BODY))
  })

  it('equals the library signature for ids, times and bodies of every kind', () => {
    const secret = newWebhookSecret()
    const wh = new Webhook(secret)
    for (const [id, ts, body] of [
      ['qw_tun_0a1b_2026-03_tool_calls', 1_772_000_000, BODY],
      ['msg_x', 0, ''],
      ['a', 1_234_567_890, 'x'.repeat(20_000)],
    ] as const) {
      assert.equal(signWebhook(secret, id, ts, body), wh.sign(id, new Date(ts * 1000), body))
    }
  })

  it('fails verification when the body, id, timestamp or secret differ', () => {
    const secret = newWebhookSecret()
    const now = Math.floor(Date.now() / 1000)
    const signature = signWebhook(secret, 'msg_abc', now, BODY)
    const wh = new Webhook(secret)
    const forged = [
      () => wh.verify(BODY.replace('ünï', 'uni'), headers('msg_abc', now, signature)),
      () => wh.verify(BODY, headers('msg_abd', now, signature)),
      () => wh.verify(BODY, headers('msg_abc', now + 1, signature)),
      () => new Webhook(newWebhookSecret()).verify(BODY, headers('msg_abc', now, signature)),
    ]
    for (const attempt of forged) assert.throws(attempt, WebhookVerificationError)
  })

  it('refuses an id with a dot, an empty id and a timestamp that is not whole seconds', () => {
    const secret = newWebhookSecret()
    assert.throws(() => signWebhook(secret, 'msg.1', 1, BODY), /contain no "\."/)
    assert.throws(() => signWebhook(secret, '', 1, BODY), RangeError)
    assert.throws(() => signWebhook(secret, 'msg_1', 1.5, BODY), /whole Unix seconds/)
    assert.throws(() => signWebhook(secret, 'msg_1', -1, BODY), RangeError)
    assert.throws(() => signWebhook('whsec_short', 'msg_1', 1, BODY), RangeError)
  })
})
