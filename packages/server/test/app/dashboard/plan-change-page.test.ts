/**
 * The plan-change confirmation page writes the provider's amounts in the currency's own minor
 * unit: Paddle sends them in the lowest denomination, cents for USD but whole yen for JPY.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planChangePage } from '../../../src/app/dashboard/plan-change-page.js'
import type { PlanChangePreview } from '../../../src/app/web-services.js'

const viewer = { email: 'ann@example.com', slug: 'ann', csrfToken: 'csrf' }
const preview = (currency: string, amounts: [number, number, number]): PlanChangePreview => ({
  from: 'pro',
  to: 'scale',
  cycle: 'monthly',
  currency,
  creditCents: amounts[0],
  chargeCents: amounts[1],
  action: 'charge',
  amountCents: amounts[2],
})
const shown = (body: string, id: string) =>
  new RegExp(`id="${id}">([^<]*)<`).exec(body)?.[1] ?? 'missing'

describe('plan change page', () => {
  it('writes dollars and euros with cents', () => {
    const usd = planChangePage(viewer, preview('USD', [600, 1950, 1350])).value
    assert.equal(shown(usd, 'change-amount'), '$13.50')
    const eur = planChangePage(viewer, preview('EUR', [5, 1950, 1945])).value
    assert.equal(shown(eur, 'change-credit'), '0.05 EUR')
  })

  it('writes a currency without minor units (yen, won) as whole units, not hundredths', () => {
    const jpy = planChangePage(viewer, preview('JPY', [900, 2950, 2050])).value
    assert.equal(shown(jpy, 'change-amount'), '2050 JPY')
    assert.equal(shown(jpy, 'change-credit'), '900 JPY')
    assert.equal(shown(jpy, 'change-charge'), '2950 JPY')
    const krw = planChangePage(viewer, preview('KRW', [0, 26000, 26000])).value
    assert.equal(shown(krw, 'change-amount'), '26000 KRW')
  })
})
