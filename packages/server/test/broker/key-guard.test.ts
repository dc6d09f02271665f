// The tunnel-key throttle with an injected clock: lookups still running count against the
// buckets (so guesses sent at once cannot outrun them), valid keys spend nothing (many at once
// from one address pass), the node-wide bucket turns 401s into 429s against many addresses but
// never holds a valid key back, and refusals are logged in aggregate once a minute.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Logger } from '@burrow/protocol'
import {
  KEY_CHECKS_PENDING_PER_ADDRESS,
  KEY_CHECKS_PENDING_PER_NODE,
  KEY_FAILURES_PER_ADDRESS,
  KEY_FAILURES_PER_SECOND,
  KeyGuard,
} from '../../src/broker/key-guard.js'

function logger(lines: string[]): Logger {
  const note = (line: string) => void lines.push(line)
  return { error: note, warn: note, info: note, debug: note, trace: note } as unknown as Logger
}

describe('KeyGuard', () => {
  it('checks guesses sent at once a few dozen at a time, and the first failures stop the rest', () => {
    let now = 0
    const guard = new KeyGuard({ log: logger([]), now: () => now })
    const pending = Array.from({ length: 2000 }, () => guard.check('203.0.113.9'))
    const admitted = pending.filter((c) => c.ok).length
    assert.equal(admitted, KEY_CHECKS_PENDING_PER_ADDRESS)
    const refused = pending.find((c) => !c.ok)
    assert.ok(refused && !refused.ok && refused.retryAfterSecs >= 1)
    for (let i = 0; i < admitted; i++) guard.failed('203.0.113.9')
    assert.equal(guard.check('203.0.113.9').ok, false, 'the spent bucket refuses before lookups')
    // Another address is not held back by this one.
    assert.equal(guard.check('198.51.100.7').ok, true)
    // A minute later the bucket is full again.
    now += 60_000
    assert.equal(guard.check('203.0.113.9').ok, true)
  })

  it('lets valid keys through, even many at once from one address, spending nothing', () => {
    const guard = new KeyGuard({ log: logger([]), now: () => 0 })
    // A node's tunnels reconnecting together from one NAT address: valid keys, looked up at once.
    for (let round = 0; round < 3; round++) {
      const checks = Array.from({ length: 40 }, () => guard.check('192.0.2.1'))
      assert.ok(
        checks.every((c) => c.ok),
        `round ${round}`,
      )
      for (let i = 0; i < checks.length; i++) guard.passed('192.0.2.1')
    }
    for (let i = 0; i < 100; i++) {
      assert.equal(guard.check('192.0.2.1').ok, true, `valid connection ${i}`)
      guard.passed('192.0.2.1')
    }
    // Unknown keys still spend: ten of them, and the address waits.
    for (let i = 0; i < KEY_FAILURES_PER_ADDRESS; i++) {
      assert.ok(guard.check('192.0.2.1').ok)
      guard.failed('192.0.2.1')
    }
    assert.equal(guard.check('192.0.2.1').ok, false)
  })

  it('never holds a valid key back for guesses spread over many addresses', () => {
    let now = 0
    const guard = new KeyGuard({ log: logger([]), now: () => now })
    // Guesses from many addresses, each failing and answered 401: they empty the node's bucket.
    for (let i = 0; i < KEY_FAILURES_PER_SECOND * 10; i++) {
      const address = `10.0.${Math.floor(i / 250)}.${i % 250}`
      assert.ok(guard.check(address).ok)
      assert.deepEqual(guard.failed(address), { throttled: false })
    }
    // Keys are still looked up, as many at once as ever; the unknown ones are now answered 429.
    const burst = Array.from({ length: 2000 }, (_, i) => guard.check(`10.7.${i >> 8}.${i & 255}`))
    assert.equal(burst.filter((c) => c.ok).length, KEY_CHECKS_PENDING_PER_NODE)
    for (let i = 0; i < KEY_CHECKS_PENDING_PER_NODE; i++) {
      const failure = guard.failed(`10.7.${i >> 8}.${i & 255}`)
      assert.ok(failure.throttled && failure.retryAfterSecs >= 1)
    }
    // A client whose key is valid, from an address of its own, gets its lookup at once.
    for (let i = 0; i < 100; i++) {
      assert.ok(guard.check('192.0.2.77').ok, 'a valid key is not held back by the node bucket')
      guard.passed('192.0.2.77')
    }
    // The per-address bucket still refuses before any lookup.
    for (let i = 0; i < KEY_FAILURES_PER_ADDRESS; i++) {
      assert.ok(guard.check('10.9.0.1').ok)
      guard.failed('10.9.0.1')
    }
    assert.equal(guard.check('10.9.0.1').ok, false)
    // Once the node's bucket refills, unknown keys get 401 again.
    now += 10_000
    assert.ok(guard.check('10.8.0.1').ok)
    assert.deepEqual(guard.failed('10.8.0.1'), { throttled: false })
  })

  it('logs refusals in one line a minute, naming how many and from how many addresses', () => {
    let now = 0
    const lines: string[] = []
    const guard = new KeyGuard({ log: logger(lines), now: () => now })
    for (let i = 0; i < 500; i++) {
      const address = `198.51.100.${i % 5}`
      if (guard.check(address).ok) guard.failed(address)
    }
    assert.deepEqual(lines, [])
    // The line goes out with the first attempt a minute on.
    now += 60_000
    assert.ok(guard.check('198.51.100.1').ok)
    guard.failed('198.51.100.1')
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /51 tunnel connections had unknown keys and 450 more were throttled/)
    assert.match(lines[0]!, /from 5 addresses/)
  })
})
