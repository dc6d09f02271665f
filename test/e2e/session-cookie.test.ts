/**
 * The dashboard's session cookie, through a real burrowd: a session's expiry slides while the
 * browser uses it (30 days from its last renewal, web-session-store.ts), and the cookie follows,
 * so a browser in daily use is not signed out 30 days after it signed in.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signUp } from '../helpers/web-client.js'

const THIRTY_DAYS_SECS = 30 * 24 * 3600

describe('the session cookie', () => {
  let service: Service
  let base: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
  })

  it("is set again on a signed-in page, ending with the session's own expiry", async () => {
    const user = await signUp(base, 'slider')
    const res = await user.page('/dashboard')
    await res.arrayBuffer()
    assert.equal(res.status, 200)
    const renewed = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
    assert.ok(renewed, 'the page sets the session cookie again')
    assert.equal(renewed.split(';', 1)[0], user.cookie, 'the same session, not a new one')
    assert.match(renewed, /; HttpOnly/)
    assert.match(renewed, /; SameSite=Lax/)
    const maxAge = Number(/Max-Age=(\d+)/.exec(renewed)?.[1])
    assert.ok(maxAge > 0 && maxAge <= THIRTY_DAYS_SECS, renewed)
  })

  it('is not set for a browser without a session, nor after sign-out', async () => {
    const user = await signUp(base, 'leaver')
    const out = await fetch(`${base}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: user.cookie },
      body: new URLSearchParams({ _csrf: user.csrf }),
    })
    assert.equal(out.status, 303)
    const res = await user.page('/dashboard')
    await res.arrayBuffer()
    assert.equal(res.status, 302, 'signed out: sent to sign in')
    const set = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
    assert.equal(set, undefined)
  })
})
