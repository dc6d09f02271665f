/**
 * Tests of `isServiceHost` and `appServes`: the service's pages answer at its own host and at
 * hosts that name no one's domain; any other name (under the zone or not) gets none of them, only
 * the probes, what `burrow up` asks at its broker's origin and the payment provider's webhooks.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PADDLE_WEBHOOK_PATH } from '../src/billing/paddle-webhook-route.js'
import { appServes, isServiceHost } from '../src/service-hosts.js'

describe('isServiceHost', () => {
  it('is the service host, an address, localhost or no Host at all', () => {
    for (const host of ['burrow.example', 'localhost', '', '127.0.0.1', '10.1.2.3', '[::1]']) {
      assert.equal(isServiceHost('burrow.example', host), true, host)
    }
  })

  it('is no other name, under the zone or not', () => {
    for (const host of [
      'tunnels.example',
      'evil.tunnels.example',
      'a.docs--acme.tunnels.example',
      'www.burrow.example',
      'burrow.example.evil.example',
      'mcp.customer.example',
      'localhost.evil.example',
      '127.0.0.1.evil.example',
      '[not-an-address]',
      '999.1.1.1',
    ]) {
      assert.equal(isServiceHost('burrow.example', host), false, host)
    }
    // The zone is the service host only while no host of its own is set.
    assert.equal(isServiceHost('tunnels.example', 'tunnels.example'), true)
  })
})

describe('appServes', () => {
  it('serves pages and the API only at the service hosts', () => {
    for (const path of ['/', '/signin', '/dashboard', '/api/tunnels', '/oauth/authorize']) {
      assert.equal(appServes('burrow.example', 'burrow.example', path), true, path)
      assert.equal(appServes('burrow.example', 'evil.burrow.example', path), false, path)
    }
  })

  it('serves probes, metrics, what `burrow up` asks and payment webhooks on any host', () => {
    const paths = ['/healthz', '/metrics', '/api/client/latest', '/api/crash-reports']
    for (const path of [...paths, PADDLE_WEBHOOK_PATH]) {
      assert.equal(appServes('burrow.example', 'node-a', path), true, path)
    }
  })
})
