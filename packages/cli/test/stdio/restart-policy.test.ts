/**
 * The restart arithmetic of stdio servers (docs/decisions.md): doubling backoff with a ceiling,
 * reset after a healthy run, and the count of consecutive quick exits.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_RESTART_TIMING, RestartPolicy } from '../../src/stdio/restart-policy.js'

describe('RestartPolicy', () => {
  it('doubles from 500 ms up to 10 s with the default timing', () => {
    const policy = new RestartPolicy()
    const delays = Array.from({ length: 7 }, () => policy.onExit(10).delayMs)
    assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 10000, 10000])
  })

  it('counts quick exits and resets after a run of 2 s or more', () => {
    const policy = new RestartPolicy(DEFAULT_RESTART_TIMING)
    assert.deepEqual(policy.onExit(100), { delayMs: 500, consecutiveCrashes: 1 })
    assert.deepEqual(policy.onExit(100), { delayMs: 1000, consecutiveCrashes: 2 })
    assert.deepEqual(policy.onExit(2_000), { delayMs: 500, consecutiveCrashes: 0 })
    assert.deepEqual(policy.onExit(0), { delayMs: 1000, consecutiveCrashes: 1 })
  })
})
