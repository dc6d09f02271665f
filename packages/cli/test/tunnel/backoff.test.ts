// Reconnect delays stay between 1 s and the growing cap, never beyond 30 s.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { reconnectDelay } from '../../src/tunnel/backoff.js'

describe('reconnectDelay', () => {
  it('starts at 1 s and grows its cap exponentially to 30 s', () => {
    assert.equal(
      reconnectDelay(0, () => 1),
      1000,
    )
    assert.equal(
      reconnectDelay(1, () => 1),
      2000,
    )
    assert.equal(
      reconnectDelay(3, () => 1),
      8000,
    )
    assert.equal(
      reconnectDelay(10, () => 1),
      30_000,
    )
    assert.equal(
      reconnectDelay(100, () => 1),
      30_000,
    )
  })
  it('draws uniformly between the floor and the cap (full jitter)', () => {
    assert.equal(
      reconnectDelay(5, () => 0),
      1000,
    )
    assert.equal(
      reconnectDelay(5, () => 0.5),
      1000 + 0.5 * (30_000 - 1000),
    )
    for (let i = 0; i < 1000; i++) {
      const d = reconnectDelay(i % 12)
      assert.ok(d >= 1000 && d <= 30_000, `delay ${d}`)
    }
  })
})
