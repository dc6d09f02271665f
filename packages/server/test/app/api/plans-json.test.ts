import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { plansJson } from '../../../src/app/api/plans-json.js'

/**
 * The README's plan table (README.md#plans-quotas-and-the-api), copied by hand: the table the
 * catalog must match field by field.
 */
const SPEC = [
  {
    id: 'free',
    name: 'Free',
    monthly: 0,
    annual: 0,
    gb: 5,
    calls: 100_000,
    tunnels: 2,
    sessions: 3,
    retentionHours: 24,
  },
  {
    id: 'pro',
    name: 'Pro',
    monthly: 12,
    annual: 120,
    gb: 25,
    calls: 1_000_000,
    tunnels: 5,
    sessions: 10,
    retentionHours: 30 * 24,
  },
  {
    id: 'scale',
    name: 'Scale',
    monthly: 39,
    annual: 390,
    gb: 100,
    calls: 5_000_000,
    tunnels: 20,
    sessions: 25,
    retentionHours: 60 * 24,
  },
]

describe('GET /api/plans body', () => {
  it('equals the README plan table field by field', () => {
    const body = plansJson()
    assert.equal(body.currency, 'USD')
    assert.deepEqual(body.billing_cycles, ['monthly', 'annual'])
    assert.deepEqual(
      body.plans.map((p) => ({
        id: p.id,
        name: p.name,
        monthly: p.price_usd.monthly,
        annual: p.price_usd.annual,
        gb: p.quotas.bandwidth_bytes_per_month / 1e9,
        calls: p.quotas.tool_calls_per_month,
        tunnels: p.quotas.tunnels,
        sessions: p.quotas.concurrent_sessions_per_tunnel,
        retentionHours: p.quotas.history_retention_hours,
      })),
      SPEC,
    )
  })

  it('says governance is on every plan and custom domains start at Pro', () => {
    const body = plansJson()
    assert.ok(body.plans.every((p) => p.governance))
    assert.deepEqual(
      body.plans.map((p) => p.custom_domains),
      [false, true, true],
    )
    assert.ok(body.governance_features.includes('Zero-knowledge mode'))
    assert.ok(body.plans[1]?.features.includes('Custom domains (one per account)'))
  })
})
