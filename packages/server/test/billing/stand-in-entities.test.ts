/**
 * Tests of the stand-in's billing periods and prices: a cycle later is the same day next month
 * or year, clamped to the month's last day; amounts come from the plan catalog.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEV_PRICES } from '../../src/billing/billing-config.js'
import { addCycle, standInPrices } from '../../src/billing/stand-in-entities.js'

const d = (iso: string) => new Date(iso)

describe('addCycle', () => {
  it('adds a month or a year, keeping the time of day', () => {
    assert.deepEqual(
      addCycle(d('2026-03-04T05:06:07.089Z'), 'monthly'),
      d('2026-04-04T05:06:07.089Z'),
    )
    assert.deepEqual(
      addCycle(d('2026-12-15T00:00:00.000Z'), 'monthly'),
      d('2027-01-15T00:00:00.000Z'),
    )
    assert.deepEqual(
      addCycle(d('2026-03-04T05:06:07.089Z'), 'annual'),
      d('2027-03-04T05:06:07.089Z'),
    )
  })

  it("clamps to the target month's last day", () => {
    assert.deepEqual(
      addCycle(d('2026-01-31T12:00:00.000Z'), 'monthly'),
      d('2026-02-28T12:00:00.000Z'),
    )
    assert.deepEqual(
      addCycle(d('2028-01-31T12:00:00.000Z'), 'monthly'),
      d('2028-02-29T12:00:00.000Z'),
    )
    assert.deepEqual(
      addCycle(d('2026-03-31T00:00:00.000Z'), 'monthly'),
      d('2026-04-30T00:00:00.000Z'),
    )
    assert.deepEqual(
      addCycle(d('2028-02-29T00:00:00.000Z'), 'annual'),
      d('2029-02-28T00:00:00.000Z'),
    )
  })
})

describe('standInPrices', () => {
  it('prices the four plans and cycles from the catalog, in cents', () => {
    const prices = standInPrices(DEV_PRICES)
    assert.deepEqual(
      [...prices.values()].map((p) => [p.id, p.plan, p.cycle, p.amountCents]),
      [
        ['pri_dev_pro_monthly', 'pro', 'monthly', 1200],
        ['pri_dev_pro_annual', 'pro', 'annual', 12000],
        ['pri_dev_scale_monthly', 'scale', 'monthly', 3900],
        ['pri_dev_scale_annual', 'scale', 'annual', 39000],
      ],
    )
  })
})
