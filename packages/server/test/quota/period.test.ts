/**
 * Usage periods: calendar months in UTC, whatever the local time zone, with the reset at
 * 00:00 UTC on the 1st and a Retry-After that is never 0.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  nextResetOf,
  periodOf,
  previousPeriodOf,
  secondsUntilReset,
} from '../../src/quota/period.js'

describe('usage periods', () => {
  it('names the UTC calendar month of a moment', () => {
    assert.equal(periodOf(new Date('2026-03-31T23:59:59.999Z')), '2026-03')
    assert.equal(periodOf(new Date('2026-04-01T00:00:00.000Z')), '2026-04')
    // 23:30 on 31 March in New York is already April in UTC.
    assert.equal(periodOf(new Date('2026-03-31T23:30:00-04:00')), '2026-04')
  })

  it('answers each moment on its own, however the moments before it went', () => {
    const moments = [
      ['2026-04-15T00:00:00.000Z', '2026-04', '2026-05-01T00:00:00.000Z'],
      ['2026-04-30T23:59:59.999Z', '2026-04', '2026-05-01T00:00:00.000Z'],
      ['2026-05-01T00:00:00.000Z', '2026-05', '2026-06-01T00:00:00.000Z'],
      ['2026-04-01T00:00:00.000Z', '2026-04', '2026-05-01T00:00:00.000Z'],
      ['2025-12-31T23:59:59.999Z', '2025-12', '2026-01-01T00:00:00.000Z'],
      ['2026-05-01T00:00:00.001Z', '2026-05', '2026-06-01T00:00:00.000Z'],
    ] as const
    for (const [at, period, reset] of moments) {
      assert.equal(periodOf(new Date(at)), period, at)
      assert.equal(nextResetOf(new Date(at)).toISOString(), reset, at)
    }
    // Years before 100 are years, not 1900 + year.
    assert.equal(periodOf(new Date('0050-01-15T00:00:00Z')), '0050-01')
    assert.equal(
      nextResetOf(new Date('0050-01-15T00:00:00Z')).toISOString(),
      '0050-02-01T00:00:00.000Z',
    )
    assert.equal(periodOf(new Date('1950-01-15T00:00:00Z')), '1950-01')
    // The reset is a Date of its own: changing one changes no later answer.
    nextResetOf(new Date('2026-05-02T00:00:00Z')).setTime(0)
    assert.equal(
      nextResetOf(new Date('2026-05-02T00:00:00Z')).toISOString(),
      '2026-06-01T00:00:00.000Z',
    )
  })

  it('resets at 00:00 UTC on the 1st of the next month, across years', () => {
    assert.deepEqual(
      nextResetOf(new Date('2026-02-14T10:00:00Z')),
      new Date('2026-03-01T00:00:00Z'),
    )
    assert.deepEqual(
      nextResetOf(new Date('2026-12-31T23:59:59.999Z')),
      new Date('2027-01-01T00:00:00Z'),
    )
    assert.deepEqual(
      nextResetOf(new Date('2027-01-01T00:00:00Z')),
      new Date('2027-02-01T00:00:00Z'),
    )
  })

  it('counts whole seconds until the reset, rounded up', () => {
    assert.equal(secondsUntilReset(new Date('2026-03-31T23:59:59.999Z')), 1)
    assert.equal(secondsUntilReset(new Date('2026-03-31T23:59:00Z')), 60)
    assert.equal(secondsUntilReset(new Date('2026-02-01T00:00:00Z')), 28 * 24 * 60 * 60)
  })

  it('steps back one period', () => {
    assert.equal(previousPeriodOf('2026-03'), '2026-02')
    assert.equal(previousPeriodOf('2026-01'), '2025-12')
    assert.throws(() => previousPeriodOf('2026-13'), RangeError)
  })

  it('refuses an invalid Date', () => {
    assert.throws(() => periodOf(new Date('nope')), RangeError)
    assert.throws(() => secondsUntilReset(new Date(Number.NaN)), RangeError)
  })
})
