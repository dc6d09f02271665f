/**
 * Tests of the retry schedule: eight attempts over about a day, jitter within ±20%, a
 * receiver's Retry-After honoured but capped, and every Retry-After form parsed or ignored.
 */

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  RETRY_DELAYS_MS,
  parseRetryAfter,
  retryDelay,
} from '../../src/webhooks/retry-schedule.js'

const HOUR = 3_600_000

describe('retryDelay', () => {
  it('follows the schedule without jitter at random() = 0.5, then gives up', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelay(i + 1, () => 0.5))
    assert.deepEqual(delays, [
      5000,
      300_000,
      1_800_000,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      null,
    ])
    assert.equal(MAX_ATTEMPTS, 8)
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)
    assert.ok(total > 24 * HOUR && total < 30 * HOUR, `${total / HOUR} h is not about a day`)
  })

  it('stretches or shrinks each delay by at most 20%', () => {
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const base = RETRY_DELAYS_MS[attempt - 1] ?? 0
      assert.equal(
        retryDelay(attempt, () => 0),
        Math.round(base * 0.8),
      )
      const high = retryDelay(attempt, () => 0.999_999) ?? 0
      assert.ok(high <= base * 1.2 && high > base * 1.19, `${high} for ${base}`)
    }
  })

  it('never retries before a Retry-After, and caps it at a day', () => {
    assert.equal(
      retryDelay(1, () => 0.5, 3_600_000),
      3_600_000,
    )
    assert.equal(
      retryDelay(1, () => 0.5, 1000),
      5000,
    )
    assert.equal(
      retryDelay(1, () => 0.5, 10 * 24 * HOUR),
      MAX_RETRY_AFTER_MS,
    )
    assert.equal(
      retryDelay(MAX_ATTEMPTS, () => 0.5, 1000),
      null,
    )
  })
})

describe('parseRetryAfter', () => {
  const now = new Date('2026-03-04T05:06:07Z')

  it('reads delay-seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter('120', now), 120_000)
    assert.equal(parseRetryAfter(' 0 ', now), 0)
    assert.equal(parseRetryAfter('Wed, 04 Mar 2026 05:16:07 GMT', now), 600_000)
    assert.equal(parseRetryAfter('Wed, 04 Mar 2026 04:00:00 GMT', now), 0)
  })

  it('ignores absent and malformed values', () => {
    for (const bad of [undefined, '', '-5', '1.5', '12345678901', 'soon', '+5']) {
      assert.equal(parseRetryAfter(bad, now), null, String(bad))
    }
  })
})
