/**
 * The account page's "Sign out other browsers" and password change give this browser a new
 * session and end the one it had, with every other: a copy of this browser's session cookie
 * (taken by malware or from a synced profile, what an owner who fears someone is in the account
 * signs the others out for) is another browser too. Before, the session this browser had stayed,
 * and so did every copy of it, after the owner signed the others out and changed the password.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const FIRST = 'correct horse battery'
const SECOND = 'purple walrus teaspoon'

describe('the account page renews this browser’s session', { timeout: 60_000 }, () => {
  let service: Service
  let user: WebUser
  let base: string

  before(async () => {
    service = await startService({})
    base = `http://127.0.0.1:${service.port}`
    user = await signUp(base, 'renewed', FIRST)
  })

  after(async () => {
    await service?.close()
  })

  /** Whether the session cookie `cookie` still opens the dashboard. */
  const signedIn = async (cookie: string) =>
    (await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: 'manual' })).status === 200
  /** The new session cookie `res` set. */
  const sessionSet = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
    assert.ok(set, `no new session cookie (${res.status}): ${res.headers.getSetCookie().join()}`)
    return set.split(';', 1)[0]!
  }
  /** A form post to the account page with session cookie `cookie`, and its CSRF token. */
  const post = async (cookie: string, path: string, fields: Record<string, string>) => {
    const page = await (await fetch(`${base}/dashboard/account`, { headers: { cookie } })).text()
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? ''
    return fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
    })
  }

  it('signs a copy of this browser’s session out with the other browsers', async () => {
    const copy = user.cookie
    const res = await post(user.cookie, '/dashboard/account/sign-out-others', {})
    assert.equal(res.status, 303)
    assert.match(res.headers.get('location') ?? '', /notice=signed_out_others/)
    const renewed = sessionSet(res)
    assert.notEqual(renewed, copy)
    assert.equal(await signedIn(copy), false, 'the copy of the old session still works')
    assert.equal(await signedIn(renewed), true, 'this browser stays signed in')

    // A password change does the same.
    const changed = await post(renewed, '/dashboard/account/password', {
      current: FIRST,
      password: SECOND,
    })
    assert.equal(changed.status, 303)
    assert.match(changed.headers.get('location') ?? '', /notice=password_changed/)
    const again = sessionSet(changed)
    assert.equal(await signedIn(renewed), false, 'the session the change was made in still works')
    assert.equal(await signedIn(again), true, 'this browser stays signed in')
  })
})
