/**
 * ScanBudget through the Redactor: one redaction is one scan, timed once, and a scan that has
 * taken its time leaves the rest of its value masked whole. Both clocks are the test's.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Redactor } from '../../src/governance/redactor.js'
import {
  MAX_SCAN_MS,
  STEPS_PER_CLOCK_CHECK,
  STEPS_PER_SEARCH,
  ScanBudget,
} from '../../src/governance/scan-budget.js'

const settings = { keys: [], detectSecrets: false, forwarded: false, patterns: ['key-[0-9]+'] }

/** A scan clock that reads `at` and counts its readings. */
function timer(): { at: number; reads: number; read: () => number } {
  const t = {
    at: 0,
    reads: 0,
    read: () => {
      t.reads++
      return t.at
    },
  }
  return t
}

describe('ScanBudget', () => {
  it('times a whole value as one scan: the clock is read when it starts and ends', () => {
    const clock = timer()
    const budget = new ScanBudget({ timer: clock.read })
    const r = new Redactor(settings, budget)
    const value = {
      params: { items: Array.from({ length: 10 }, (_, i) => `item ${i}`), k: 'x key-12 y' },
    }
    const out = r.redactValue(value) as { params: { items: string[]; k: string } }
    assert.equal(out.params.k, 'x [REDACTED:pattern] y')
    assert.equal(out.params.items[9], 'item 9')
    assert.equal(clock.reads, 2)
    // A value with no text and no number starts no scan.
    clock.reads = 0
    assert.deepEqual(r.redactValue([false, { '': [true, null] }]), [false, { '': [true, null] }])
    assert.equal(clock.reads, 0)
  })

  it('reads the clock again once searches have made enough steps', () => {
    const clock = timer()
    const budget = new ScanBudget({ timer: clock.read })
    const r = new Redactor(settings, budget)
    // Each string's search costs (instructions × characters); enough strings pass the check.
    const text = 'x'.repeat(200)
    const many = Array.from({ length: 2_000 }, () => text)
    r.redactValue(many)
    // 2,000 searches of 200 characters: a reading per STEPS_PER_CLOCK_CHECK steps, not one each.
    assert.ok(clock.reads > 2, `${clock.reads} readings`)
    assert.ok(
      clock.reads <= 2 + (2_000 * 200 * 20) / STEPS_PER_CLOCK_CHECK,
      `${clock.reads} readings`,
    )
  })

  it('masks the rest of a value whole once its scan has taken its time, and charges it', () => {
    // Every reading after the first finds the scan's whole allowance gone.
    let at = 0
    const budget = new ScanBudget({ now: () => 0, timer: () => (at += MAX_SCAN_MS + 1) })
    const r = new Redactor(settings, budget)
    // The first string's search makes enough steps to read the clock: the scan is over.
    const long = `key-1 ${'x'.repeat(20_000)}`
    assert.deepEqual(r.redactValue([long, 'key-2', 'plain']), [
      '[REDACTED:unscanned]',
      '[REDACTED:unscanned]',
      '[REDACTED:unscanned]',
    ])
    assert.ok(budget.left <= 3000 - MAX_SCAN_MS, `${budget.left} ms left`)
    // The next value is a new scan, with what is left of the minute.
    const fresh = new ScanBudget({ now: () => 0, timer: () => 0 })
    assert.deepEqual(new Redactor(settings, fresh).redactValue(['key-3']), ['[REDACTED:pattern]'])
  })

  it('counts every search, the last one of each string too, however short its text', () => {
    const clock = timer()
    const r = new Redactor({ ...settings, patterns: ['a'] }, new ScanBudget({ timer: clock.read }))
    // 10,000 one-character strings that match: three searches each (the test, the match, and
    // the last search, which finds nothing), each counted for starting too.
    r.redactValue(Array.from({ length: 10_000 }, () => 'a'))
    const searches = 10_000 * 3
    assert.ok(
      clock.reads >= (searches * STEPS_PER_SEARCH) / STEPS_PER_CLOCK_CHECK,
      `${clock.reads} readings`,
    )
  })

  it('leaves out of a scan the time of work it is not (the built-in detectors)', () => {
    let at = 0
    const budget = new ScanBudget({ now: () => 0, timer: () => at })
    const scan = budget.start()
    at += 10
    assert.equal(
      scan.untimed(() => {
        at += 1_000
        return 'done'
      }),
      'done',
    )
    assert.equal(scan.over, false)
    scan.end()
    assert.equal(budget.left, 3000 - 10)
  })

  it('masks the rest of a value without running the detectors once its scan is over', () => {
    let at = 0
    const budget = new ScanBudget({ now: () => 0, timer: () => (at += MAX_SCAN_MS + 1) })
    const r = new Redactor({ ...settings, detectSecrets: true }, budget)
    const token = `ghp_${'A'.repeat(36)}`
    const out = r.redactValue([`key-1 ${'x'.repeat(20_000)}`, `a ${token}`]) as string[]
    assert.deepEqual(out, ['[REDACTED:unscanned]', '[REDACTED:unscanned]'])
  })

  it('starts no scan while the tunnel or the node has no time left', () => {
    const node = new ScanBudget({ msPerMinute: 10, now: () => 0 })
    const budget = new ScanBudget({ node, now: () => 0 })
    const r = new Redactor(settings, budget)
    node.spent(20)
    assert.deepEqual(r.redactValue(['key-1', 'b']), [
      '[REDACTED:unscanned]',
      '[REDACTED:unscanned]',
    ])
    assert.equal(budget.refused, 1, 'once: the rest is masked without asking again')
  })
})
