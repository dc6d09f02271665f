/**
 * The budgets of access writes (mode and allowlist, agent tokens, disconnects, key rotations):
 * per tunnel, per account, refusals that spend nothing, and refill over time.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ACCESS_WRITES_PER_MINUTE,
  ACCOUNT_ACCESS_WRITES_PER_MINUTE,
  AccessWriteLimits,
} from '../../src/app/access-write-limits.js'
import { HttpError } from '../../src/http/http-error.js'

function refusal(fn: () => void): HttpError {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof HttpError)
    return err
  }
  assert.fail('the write was allowed')
}

describe('AccessWriteLimits', () => {
  it('refuses a tunnel past its writes a minute with 429 rate_limited and the wait', () => {
    let now = 0
    const limits = new AccessWriteLimits({ now: () => now })
    for (let i = 0; i < ACCESS_WRITES_PER_MINUTE; i++) limits.spend('acct', 't1')
    const e = refusal(() => limits.spend('acct', 't1'))
    assert.equal(e.status, 429)
    assert.equal(e.code, 'rate_limited')
    assert.match(e.message, /this tunnel's access changed 30 times in the last minute/)
    assert.equal(e.details.retry_after_secs, 2)
    // Another tunnel of the account has its own budget.
    limits.spend('acct', 't2')
    now += 2_000
    limits.spend('acct', 't1')
  })

  it("refuses an account past its writes a minute over all its tunnels, other accounts' not", () => {
    const limits = new AccessWriteLimits({ now: () => 0 })
    const tunnels = ACCOUNT_ACCESS_WRITES_PER_MINUTE / ACCESS_WRITES_PER_MINUTE
    for (let t = 0; t < tunnels; t++) {
      for (let i = 0; i < ACCESS_WRITES_PER_MINUTE; i++) limits.spend('acct', `t${t}`)
    }
    const e = refusal(() => limits.spend('acct', 'fresh'))
    assert.equal(e.status, 429)
    assert.match(e.message, /this account's tunnels' access changed 120 times/)
    assert.equal(typeof e.details.retry_after_secs, 'number')
    limits.spend('other', 'elsewhere')
  })

  it('a refusal by the tunnel does not spend the account, nor the account the tunnel', () => {
    let now = 0
    const limits = new AccessWriteLimits({ now: () => now })
    for (let i = 0; i < ACCESS_WRITES_PER_MINUTE; i++) limits.spend('acct', 'busy')
    // Many refused writes to the busy tunnel leave the account's budget as it was.
    for (let i = 0; i < 500; i++) refusal(() => limits.spend('acct', 'busy'))
    for (let i = 0; i < ACCOUNT_ACCESS_WRITES_PER_MINUTE - ACCESS_WRITES_PER_MINUTE; i++) {
      limits.spend('acct', `quiet${i % 3}`)
    }
    refusal(() => limits.spend('acct', 'quiet3'))
    // The refused write above took nothing from quiet3: once the account refills, it has all 30.
    now += 60_000
    for (let i = 0; i < ACCESS_WRITES_PER_MINUTE; i++) limits.spend('acct', 'quiet3')
  })
})
