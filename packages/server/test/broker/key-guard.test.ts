// The tunnel-key throttle with an injected clock: attempts are reserved before the lookup (so
// guesses sent at once cannot outrun it), valid keys give theirs back, the node-wide bucket
// holds against many addresses, and refusals are logged in aggregate once a minute.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Logger } from '@burrow/protocol'
import {
  KEY_FAILURES_PER_ADDRESS,
  KEY_FAILURES_PER_SECOND,
  KeyGuard,
} from '../../src/broker/key-guard.js'

function logger(lines: string[]): Logger {
  const note = (line: string) => void lines.push(line)
  return { error: note, warn: note, info: note, debug: note, trace: note } as unknown as Logger
}

describe('KeyGuard', () => {
  it('reserves an attempt per check, so checks pending together cannot pass the limit', () => {
    let now = 0
    const guard = new KeyGuard({ log: logger([]), now: () => now })
    const pending = Array.from({ length: 50 }, () => guard.check('203.0.113.9'))
    assert.equal(pending.filter((c) => c.ok).length, KEY_FAILURES_PER_ADDRESS)
    const refused = pending.find((c) => !c.ok)
    assert.ok(refused && !refused.ok && refused.retryAfterSecs >= 1)
    for (let i = 0; i < KEY_FAILURES_PER_ADDRESS; i++) guard.failed('203.0.113.9')
    assert.equal(guard.check('203.0.113.9').ok, false)
    // Another address is not held back by this one.
    assert.equal(guard.check('198.51.100.7').ok, true)
    // A minute later the bucket is full again.
    now += 60_000
    assert.equal(guard.check('203.0.113.9').ok, true)
  })

  it('gives a valid key its attempt back', () => {
    const guard = new KeyGuard({ log: logger([]), now: () => 0 })
    for (let i = 0; i < 100; i++) {
      assert.equal(guard.check('192.0.2.1').ok, true, `valid connection ${i}`)
      guard.passed('192.0.2.1')
    }
  })

  it('holds the whole node against guesses spread over many addresses', () => {
    let now = 0
    const guard = new KeyGuard({ log: logger([]), now: () => now })
    let checked = 0
    for (let i = 0; i < 2000; i++) {
      const address = `10.0.${Math.floor(i / 250)}.${i % 250}`
      if (guard.check(address).ok) {
        checked++
        guard.failed(address)
      }
    }
    assert.equal(checked, KEY_FAILURES_PER_SECOND * 10)
    now += 1000
    const after = Array.from({ length: 100 }, (_, i) => guard.check(`10.9.0.${i}`))
    assert.equal(after.filter((c) => c.ok).length, KEY_FAILURES_PER_SECOND)
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
