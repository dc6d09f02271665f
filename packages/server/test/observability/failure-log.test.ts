// Failed requests in the log: one stack per window, the rest counted in one line (a hostile
// review found one stack per request during a Redis outage, as many as strangers sent).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { FAILURE_LOG_WINDOW_MS, FailureLog } from '../../src/observability/failure-log.js'

describe('FailureLog', () => {
  it('logs the first failure of a window whole and counts the others', () => {
    const lines: string[] = []
    let now = 1_000_000
    const failures = new FailureLog(
      createLogger('info', (line) => void lines.push(line)),
      () => now,
    )
    for (let i = 0; i < 1000; i++) failures.failed(new Error(`redis down ${i}`))
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /request failed: Error: redis down 0\n\s+at /)
    now += FAILURE_LOG_WINDOW_MS
    failures.failed(new Error('database gone'))
    assert.equal(lines.length, 3)
    assert.match(lines[1]!, /999 more request\(s\) failed .*the last with: redis down 999/)
    assert.match(lines[2]!, /request failed: Error: database gone/)
    now += FAILURE_LOG_WINDOW_MS
    failures.failed(new Error('once'))
    assert.equal(lines.length, 4, 'nothing unlogged to tell of')
  })
})
