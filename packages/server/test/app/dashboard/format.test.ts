import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  formatBytes,
  formatCount,
  formatDate,
  formatDateTime,
  formatRetention,
  formatStoredInstant,
  formatUsd,
} from '../../../src/app/dashboard/format.js'

describe('format', () => {
  it('writes sizes in decimal units as bandwidth is sold', () => {
    assert.equal(formatBytes(5_000_000_000), '5 GB')
    assert.equal(formatBytes(1_250_000), '1.3 MB')
    assert.equal(formatBytes(512), '512 B')
    assert.equal(formatBytes(100_000_000_000), '100 GB')
  })

  it('writes counts, prices, dates in UTC and retention', () => {
    assert.equal(formatCount(1_000_000), '1,000,000')
    assert.equal(formatUsd(12), '$12')
    assert.equal(formatUsd(0), '$0')
    assert.equal(formatDate(new Date('2026-12-01T00:00:00Z')), 'Dec 1, 2026')
    assert.equal(formatDateTime(new Date('2026-12-01T05:07:00Z')), 'Dec 1, 2026, 05:07 UTC')
    assert.equal(formatRetention(24), '24 hours')
    assert.equal(formatRetention(720), '30 days')
  })
})

describe('formatStoredInstant', () => {
  it('writes a call time as the other pages write times, to the millisecond', () => {
    // The call page showed the raw ISO text, 2026-11-30T17:41:52.954Z.
    assert.equal(formatStoredInstant('2026-11-30T17:41:52.954Z'), 'Nov 30, 2026, 17:41:52.954 UTC')
    assert.equal(formatStoredInstant('2026-01-02T03:04:05.006Z'), 'Jan 2, 2026, 03:04:05.006 UTC')
  })

  it('hostile: text that is not a time is shown as it is', () => {
    assert.equal(formatStoredInstant('not a time'), 'not a time')
    assert.equal(formatStoredInstant(''), '')
  })
})
