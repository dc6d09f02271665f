/**
 * Proration as Paddle states it: the stand-in's arithmetic (share of the period left, credit at
 * the old price, charge at the new one) and the parser of Paddle's `update_summary`, which
 * refuses anything that is not one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseUpdateSummary, prorate, updateSummaryEntity } from '../../src/billing/proration.js'

const START = new Date('2026-03-01T00:00:00Z')
const END = new Date('2026-03-31T00:00:00Z')
const at = (days: number) => new Date(START.getTime() + days * 86_400_000)
const base = {
  periodStart: START,
  periodEnd: END,
  sameInterval: true,
  mode: 'prorated_immediately',
}

describe('prorate', () => {
  it('charges the difference for the share of the period left, or credits it', () => {
    assert.deepEqual(prorate({ ...base, oldCents: 1200, newCents: 3900, now: at(10) }), {
      currency: 'USD',
      creditCents: 800,
      chargeCents: 2600,
      action: 'charge',
      amountCents: 1800,
    })
    const down = prorate({ ...base, oldCents: 3900, newCents: 1200, now: at(15) })
    assert.deepEqual([down.action, down.amountCents], ['credit', 1350])
  })

  it('charges a new interval in full, and nothing past the period end', () => {
    const annual = prorate({
      ...base,
      oldCents: 1200,
      newCents: 12000,
      sameInterval: false,
      now: at(15),
    })
    assert.deepEqual(
      [annual.creditCents, annual.chargeCents, annual.amountCents],
      [600, 12000, 11400],
    )
    const late = prorate({ ...base, oldCents: 1200, newCents: 3900, now: at(40) })
    assert.deepEqual([late.creditCents, late.chargeCents, late.amountCents], [0, 0, 0])
  })

  it('follows the other billing modes', () => {
    assert.equal(
      prorate({ ...base, mode: 'do_not_bill', oldCents: 1200, newCents: 3900, now: at(1) })
        .amountCents,
      0,
    )
    const full = prorate({
      ...base,
      mode: 'full_immediately',
      oldCents: 1200,
      newCents: 3900,
      now: at(1),
    })
    assert.deepEqual([full.creditCents, full.chargeCents], [0, 3900])
  })
})

describe('parseUpdateSummary', () => {
  it('reads what updateSummaryEntity writes', () => {
    const p = prorate({ ...base, oldCents: 1200, newCents: 3900, now: at(3) })
    assert.deepEqual(parseUpdateSummary(updateSummaryEntity(p)), p)
  })

  it('refuses what is not an update summary', () => {
    const good = updateSummaryEntity(prorate({ ...base, oldCents: 1, newCents: 2, now: at(1) }))
    const bad: unknown[] = [
      null,
      'summary',
      [],
      {},
      { ...good, credit: { amount: -5, currency_code: 'USD' } },
      { ...good, charge: { amount: '1e9', currency_code: 'USD' } },
      { ...good, result: { amount: '1', currency_code: 'USD', action: 'refund' } },
      { ...good, result: { amount: '1', currency_code: 'usd dollars', action: 'charge' } },
      { ...good, result: { amount: '9'.repeat(40), currency_code: 'USD', action: 'charge' } },
    ]
    for (const value of bad)
      assert.equal(typeof parseUpdateSummary(value), 'string', JSON.stringify(value))
  })
})
