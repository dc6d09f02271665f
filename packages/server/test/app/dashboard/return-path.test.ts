/**
 * Tests of where sign-in may send a browser afterwards: back to the OAuth authorization endpoint
 * on this host only, never elsewhere (no open redirect).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { returnPath } from '../../../src/app/dashboard/return-path.js'

describe('sign-in return path', () => {
  it('returns to the authorization endpoint', () => {
    const next = '/oauth/authorize?client_id=dcr_x&state=1'
    assert.equal(returnPath(next), next)
  })

  it('returns to an address verification link', () => {
    const next = '/verify?token=abc_DEF-123'
    assert.equal(returnPath(next), next)
  })

  it('refuses anything else', () => {
    for (const bad of [
      null,
      undefined,
      '',
      '/dashboard',
      'https://evil.example/oauth/authorize?x',
      '//evil.example/oauth/authorize?x',
      '/oauth/authorize',
      '/oauth/authorize?x\r\nLocation: https://evil.example',
      '/oauth/authorize?\\\\evil.example',
      `/oauth/authorize?${'x'.repeat(9_000)}`,
      '/verify',
      '/verify?token=',
      '/verify?token=abc&next=https://evil.example',
      '/verify?token=abc\r\nLocation: https://evil.example',
      `/verify?token=${'a'.repeat(200)}`,
      '/verify?token=abc#x',
    ]) {
      assert.equal(returnPath(bad), null, String(bad).slice(0, 40))
    }
  })

  it('percent-encodes what a Location header cannot carry, and refuses control characters', () => {
    assert.equal(returnPath('/oauth/authorize?x=\u20ac y'), '/oauth/authorize?x=%E2%82%AC%20y')
    assert.equal(returnPath('/oauth/authorize?x=\u0001'), null)
    assert.equal(returnPath('/oauth/authorize?x=\u0085'), null)
  })
})
