import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { UsageError } from '../../src/cli-errors.js'
import { checkInspectToken } from '../../src/inspector/inspect-token-check.js'

function refusal(token: string): string {
  try {
    checkInspectToken(token)
  } catch (err) {
    assert.ok(err instanceof UsageError)
    return err.message
  }
  return ''
}

describe('checkInspectToken', () => {
  it('takes what a random draw makes', () => {
    assert.equal(refusal(randomBytes(16).toString('hex')), '')
    assert.equal(refusal(randomBytes(16).toString('base64url')), '')
    assert.equal(refusal(randomBytes(96).toString('base64url')), '')
  })

  it('refuses a token one proof answer lets a stranger guess offline', () => {
    // 8 characters passed before: 48 bits, hours of SHA-256 on one graphics card.
    assert.match(refusal('abcd1234'), /22-128 characters long \(it has 8\)/)
    assert.match(refusal('x'.repeat(21) + 'y'), /repeats too few characters/)
    assert.match(refusal('xy'.repeat(20)), /repeats too few characters/)
    assert.match(refusal('x'.repeat(129)), /it has 129/)
    // 22 hex digits carry 88 bits, not 132.
    assert.match(refusal(randomBytes(11).toString('hex')), /hex digits alone .* at least 32/)
  })

  it('refuses characters a URL fragment would change, and says how to make a good token', () => {
    assert.match(refusal('0123456789abcdef0123456789+/'), /only A-Z, a-z, 0-9/)
    assert.match(refusal('short'), /openssl rand -hex 16/)
  })
})
