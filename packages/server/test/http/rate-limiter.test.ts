/**
 * The token-bucket limiter behind per-client limits, on an injected clock: a burst of
 * `capacity`, then refusals with the seconds to wait, refills over time, separate keys, and a
 * bounded number of remembered keys.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RateLimiter } from '../../src/http/rate-limiter.js'

describe('RateLimiter', () => {
  const limiter = (now: () => number, maxKeys?: number) =>
    new RateLimiter({ capacity: 30, perMs: 60_000, now, ...(maxKeys ? { maxKeys } : {}) })

  it('allows a burst of `capacity`, then refuses with Retry-After seconds', () => {
    const clock = 1_000_000
    const rl = limiter(() => clock)
    for (let i = 0; i < 30; i++) assert.deepEqual(rl.take('a'), { ok: true }, `request ${i + 1}`)
    assert.deepEqual(rl.take('a'), { ok: false, retryAfterSecs: 2 })
  })

  it('refills evenly: one request every perMs / capacity', () => {
    let clock = 0
    const rl = limiter(() => clock)
    for (let i = 0; i < 30; i++) rl.take('a')
    assert.equal(rl.take('a').ok, false)
    clock += 1999
    assert.equal(rl.take('a').ok, false)
    clock += 1
    assert.equal(rl.take('a').ok, true)
    assert.equal(rl.take('a').ok, false)
    clock += 60_000
    for (let i = 0; i < 30; i++) assert.equal(rl.take('a').ok, true)
    assert.equal(rl.take('a').ok, false)
  })

  it('keeps one bucket per key', () => {
    const rl = limiter(() => 0)
    for (let i = 0; i < 30; i++) rl.take('a')
    assert.equal(rl.take('a').ok, false)
    assert.equal(rl.take('b').ok, true)
  })

  it('remembers at most maxKeys keys, forgetting refilled ones to make room', () => {
    let clock = 0
    const rl = limiter(() => clock, 3)
    for (let i = 0; i < 30; i++) rl.take('busy')
    clock += 61_000
    for (const key of ['x', 'y', 'z']) rl.take(key)
    // The refilled bucket made room for `z`; the recent keys survive with what they spent.
    assert.equal(rl.size, 3)
    for (let i = 0; i < 29; i++) assert.equal(rl.take('z').ok, true)
    assert.equal(rl.take('z').ok, false)
    assert.equal(rl.take('x').ok, true)
    assert.equal(rl.size, 3)
  })

  it('tells onSpend of what it allowed and gave back, not of what it refused', () => {
    const told: [string, number][] = []
    const rl = new RateLimiter({
      capacity: 2,
      perMs: 60_000,
      now: () => 0,
      onSpend: (key, delta) => told.push([key, delta]),
    })
    rl.take('a')
    rl.take('a')
    rl.take('a')
    rl.giveBack('a')
    rl.giveBack('never-seen')
    assert.deepEqual(told, [
      ['a', 1],
      ['a', 1],
      ['a', -1],
    ])
  })

  it('charges what another node spent: past empty as a debt, refilling as its own', () => {
    let clock = 0
    const rl = new RateLimiter({ capacity: 3, perMs: 60_000, now: () => clock })
    rl.charge('a', 1)
    rl.charge('a', 1)
    assert.equal(rl.take('a').ok, true)
    assert.equal(rl.take('a').ok, false)
    // Charged past empty: the two are owed, so three refill periods' shares allow one again.
    rl.charge('a', 1)
    rl.charge('a', 1)
    clock += 40_000
    assert.equal(rl.take('a').ok, false)
    clock += 20_000
    assert.equal(rl.take('a').ok, true)
    // A give-back from elsewhere fills one request back, never past the capacity.
    rl.charge('a', -1)
    assert.equal(rl.take('a').ok, true)
    // A bucket in debt is not forgotten as refilled after one period.
    const few = new RateLimiter({ capacity: 1, perMs: 60_000, now: () => clock, maxKeys: 2 })
    few.take('spent')
    few.charge('owed', 1)
    few.charge('owed', 1)
    clock += 60_000
    few.take('new')
    assert.equal(few.size, 2)
    assert.equal(few.take('owed').ok, false)
    for (let i = 0; i < 5; i++) rl.charge('b', -1)
    for (let i = 0; i < 3; i++) assert.equal(rl.take('b').ok, true)
    assert.equal(rl.take('b').ok, false)
  })
})
