/**
 * The per-account limit of failed sign-ins from unknown browsers: bounded in memory, so emails no
 * account has take no bucket (found by a hostile review: failed sign-ins for 10,000 invented
 * emails pushed out the bucket of an account being guessed, which then had 10 fresh guesses).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  SignInGuard,
  UNTRUSTED_FAILURES_PER_ACCOUNT,
} from '../../../src/app/dashboard/sign-in-guard.js'

describe('SignInGuard', () => {
  it("keeps an account's bucket empty whatever other emails are tried", () => {
    let now = 0
    const guard = new SignInGuard({ secret: 's', now: () => now })
    const victim = 'victim@example.com'
    for (let i = 0; i < UNTRUSTED_FAILURES_PER_ACCOUNT; i++) guard.failed(victim, null, 'stamp')
    assert.equal(guard.check(victim, undefined, 'stamp').ok, false)
    now = 1000
    for (let i = 0; i < 10_000; i++) guard.failed(`x${i}@example.com`, null, '')
    assert.equal(guard.check(victim, undefined, 'stamp').ok, false)
  })

  it('answers an email no account has as it answers an account (no telling which exist)', () => {
    const guard = new SignInGuard({ secret: 's' })
    for (let i = 0; i < UNTRUSTED_FAILURES_PER_ACCOUNT; i++) {
      guard.failed('nobody@example.com', null, '')
      guard.failed('someone@example.com', null, 'stamp')
    }
    const nobody = guard.check('nobody@example.com', undefined, '')
    const someone = guard.check('someone@example.com', undefined, 'stamp')
    assert.equal(nobody.ok, false)
    assert.deepEqual(nobody, someone)
  })

  it('counts failures of one account in any spelling of its address', () => {
    const guard = new SignInGuard({ secret: 's' })
    for (let i = 0; i < UNTRUSTED_FAILURES_PER_ACCOUNT; i++) {
      guard.failed(
        i % 2 ? ' Bob@Example.com' : 'bob@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com',
        null,
        'stamp',
      )
    }
    assert.equal(guard.check('bob@example.com', undefined, 'stamp').ok, false)
  })
})
