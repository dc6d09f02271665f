/**
 * The wait before resuming a stream: the server's `retry`, or the SDK's 1 s without one, grown
 * after failures, and held between the least and the longest wait whatever the server says; and
 * which refusals are asked again.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isPassingRefusal,
  RESUME_LIMITS,
  resumeDelay,
} from '../../src/aggregator/stream-resumption.js'

describe('resumeDelay', () => {
  it("waits the server's retry, held between the bounds", () => {
    assert.equal(resumeDelay(250, 0, RESUME_LIMITS), 250)
    assert.equal(resumeDelay(0, 0, RESUME_LIMITS), RESUME_LIMITS.minDelayMs)
    assert.equal(resumeDelay(9_999_999_999, 0, RESUME_LIMITS), RESUME_LIMITS.maxDelayMs)
  })

  it('waits 1 s without a retry, 1.5 times longer after each failure, up to 30 s', () => {
    assert.equal(resumeDelay(null, 0, RESUME_LIMITS), 1_000)
    assert.equal(resumeDelay(null, 1, RESUME_LIMITS), 1_500)
    assert.equal(resumeDelay(null, 2, RESUME_LIMITS), 2_250)
    assert.equal(resumeDelay(null, 20, RESUME_LIMITS), 30_000)
    assert.equal(resumeDelay(0, 2, RESUME_LIMITS), RESUME_LIMITS.minDelayMs)
  })
})

describe('isPassingRefusal', () => {
  it('asks again after 409, 429 and 5xx only', () => {
    for (const status of [409, 429, 500, 502, 503]) assert.equal(isPassingRefusal(status), true)
    for (const status of [200, 307, 400, 401, 403, 404, 405]) {
      assert.equal(isPassingRefusal(status), false)
    }
  })
})
