/**
 * Tests of endpoint secrets: the Standard Webhooks `whsec_` form with 32 random bytes, and the
 * key derived from it, which must be what the `standardwebhooks` library derives too.
 */

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { newWebhookSecret, webhookSecretKey } from '../../src/webhooks/webhook-secret.js'

describe('webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, different every time', () => {
    const secrets = new Set(Array.from({ length: 50 }, newWebhookSecret))
    assert.equal(secrets.size, 50)
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal(webhookSecretKey(secret).length, 32)
    }
  })

  it('decode to the key the standardwebhooks library signs with', () => {
    const secret = newWebhookSecret()
    const at = new Date(1_700_000_000_000)
    const ours = createHmac('sha256', webhookSecretKey(secret))
      .update('msg_1.1700000000.{}')
      .digest('base64')
    assert.equal(new Webhook(secret).sign('msg_1', at, '{}'), `v1,${ours}`)
  })

  it('refuse secrets without the prefix, not base64, or of the wrong size', () => {
    const bytes = (n: number) => Buffer.alloc(n, 7).toString('base64')
    for (const bad of [
      bytes(32),
      'whsec_',
      `whsk_${bytes(32)}`,
      `whsec_${bytes(23)}`,
      `whsec_${bytes(65)}`,
      'whsec_not base64 at all!!',
    ]) {
      assert.throws(() => webhookSecretKey(bad), RangeError, bad)
    }
    assert.equal(webhookSecretKey(`whsec_${bytes(24)}`).length, 24)
    assert.equal(webhookSecretKey(`whsec_${bytes(64)}`).length, 64)
  })
})
