import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseCookies, serializeCookie } from '../../src/http/cookies.js'

describe('cookies', () => {
  it('parses a Cookie header, first duplicate wins, bad encodings skipped', () => {
    const c = parseCookies('a=1; b="two"; a=3; bad=%E0%A4%A; c=x%20y; =nameless')
    assert.equal(c.get('a'), '1')
    assert.equal(c.get('b'), 'two')
    assert.equal(c.get('c'), 'x y')
    assert.equal(c.has('bad'), false)
    assert.equal(parseCookies(undefined).size, 0)
  })

  it('writes HttpOnly SameSite=Lax cookies, Secure only when asked', () => {
    assert.equal(
      serializeCookie('s', 'a b', { secure: false, maxAgeSecs: 60 }),
      's=a%20b; Path=/; HttpOnly; SameSite=Lax; Max-Age=60',
    )
    assert.match(serializeCookie('s', '', { secure: true, maxAgeSecs: 0 }), /Max-Age=0; Secure$/)
  })

  it('writes a __Host- cookie only Secure, with Path=/ and no Domain', () => {
    const cookie = serializeCookie('__Host-s', 'v', { secure: true })
    assert.equal(cookie, '__Host-s=v; Path=/; HttpOnly; SameSite=Lax; Secure')
    assert.doesNotMatch(cookie, /Domain/i)
    assert.throws(() => serializeCookie('__Host-s', 'v', { secure: false }), /must be Secure/)
  })
})
