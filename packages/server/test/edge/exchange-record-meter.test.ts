/**
 * The response meter of an exchange whose agent hung up while it was being admitted: finished at
 * once. It was kept open, and with it the quota gate's way to cut the response, holding the dead
 * response and its socket for as long as burrowd ran (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import type { ResponseMeter } from '../../src/quota/quota-gate.js'
import type { TunnelWithAccount } from '../../src/store/store.js'

const TUNNEL = {
  id: 'tun_1',
  accountId: 'acc_1',
  subdomain: 'files',
  accountSlug: 'acme',
  plan: 'free',
} as unknown as TunnelWithAccount

function record(): ExchangeRecord {
  return new ExchangeRecord({
    tunnel: TUNNEL,
    method: 'POST',
    body: null,
    sessionId: undefined,
    agentId: null,
    history: null,
    sessions: null,
    arrivedAt: new Date(),
    started: performance.now(),
  })
}

function meter(): ResponseMeter & { finished: number } {
  const m = {
    finished: 0,
    add: () => {},
    finish: () => {
      m.finished++
    },
  }
  return m
}

describe('ExchangeRecord#meterWith', () => {
  it('finishes a meter given after the agent hung up', () => {
    const r = record()
    r.closed()
    const m = meter()
    r.meterWith(m)
    assert.equal(m.finished, 1)
  })

  it('finishes a meter given before, when the exchange ends', () => {
    const r = record()
    const m = meter()
    r.meterWith(m)
    assert.equal(m.finished, 0)
    r.closed()
    assert.equal(m.finished, 1)
  })
})
