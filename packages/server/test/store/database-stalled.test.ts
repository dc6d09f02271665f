/**
 * Which failures are a stalled or unreachable database's (answered 503 with Retry-After): pg's
 * own messages, and one wrapped by the code that met it (the usage counters' write queue tells
 * an operator's `burrowd usage set` "writing to the database failed", with the stall as its
 * cause, which was answered 500 internal error).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { QUERY_TIMEOUT_MESSAGE, TIMED_OUT_BEFORE_MESSAGE } from '../../src/store/bounded-pg-pool.js'
import { isDatabaseStalled, neverSent } from '../../src/store/database-stalled.js'

describe('isDatabaseStalled', () => {
  it("knows pg's messages, and nothing else", () => {
    assert.ok(isDatabaseStalled(new Error(QUERY_TIMEOUT_MESSAGE)))
    assert.ok(isDatabaseStalled(new Error('timeout exceeded when trying to connect')))
    assert.ok(!isDatabaseStalled(new Error('duplicate key value violates unique constraint')))
  })

  it('looks through the errors that wrap one', () => {
    const stall = new Error(QUERY_TIMEOUT_MESSAGE)
    const wrapped = new Error('usage counters: writing to the database failed', { cause: stall })
    assert.ok(isDatabaseStalled(wrapped))
    assert.ok(isDatabaseStalled(new Error('outer', { cause: wrapped })))
    const unsent = new Error('timeout exceeded when trying to connect')
    assert.ok(neverSent(new Error('wrapped', { cause: unsent })))
    assert.ok(!neverSent(wrapped))
    assert.ok(!isDatabaseStalled(new Error('wrapped', { cause: new Error('not the database') })))
    assert.ok(!isDatabaseStalled(new Error('wrapped', { cause: 'a string' })))
  })

  it('does not take a refusal behind a timed-out query for a statement never sent', () => {
    // Kysely throws a failed transaction's rollback error, not its statement's: refused behind
    // the statement that timed out, which was sent and may land.
    const refused = new Error(TIMED_OUT_BEFORE_MESSAGE)
    assert.ok(isDatabaseStalled(refused))
    assert.equal(neverSent(refused), false)
  })

  it('ends on a cycle of causes', () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    ;(a as { cause?: unknown }).cause = b
    assert.equal(isDatabaseStalled(a), false)
    assert.equal(neverSent(a), false)
  })
})
