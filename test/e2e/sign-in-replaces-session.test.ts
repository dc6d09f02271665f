/**
 * Signing in (or up) on a browser ends the session whose cookie the new one replaces, through a
 * real burrowd. Found by a hostile review: the replaced session stayed valid for up to 30 days
 * (its sliding expiry) though no browser of the owner held its cookie any more, so a copy of the
 * cookie taken earlier (a shared machine, a leaked backup of the browser's profile) went on
 * working after its owner signed in again, and no sign-out could reach it but a password change.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signIn, signUp } from '../helpers/web-client.js'

/** The form at `path` and its post, from a browser holding `session`: the new session cookie. */
async function postForm(
  base: string,
  path: string,
  session: string,
  fields: Record<string, string>,
): Promise<string> {
  const page = await fetch(`${base}${path}`)
  const form = page.headers.getSetCookie()[0]?.split(';', 1)[0] ?? ''
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `${form}; ${session}`,
    },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  })
  assert.equal(res.status, 303, await res.text())
  const set = res.headers.getSetCookie().find((c) => c.startsWith('burrow_session='))
  return set?.split(';', 1)[0] ?? ''
}

/** The dashboard's status for a browser holding `session` (200 signed in, 302 sent to sign in). */
async function dashboardStatus(base: string, session: string): Promise<number> {
  const res = await fetch(`${base}/dashboard`, { headers: { cookie: session }, redirect: 'manual' })
  await res.arrayBuffer()
  return res.status
}

describe('a sign-in replacing a session cookie', { timeout: 60_000 }, () => {
  let service: Service
  let base: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    base = `http://127.0.0.1:${service.port}`
  })

  after(async () => {
    await service?.close()
  })

  it('ends the session it replaces, of the same account', async () => {
    const user = await signUp(base, 'again')
    const copy = user.cookie // what a thief took earlier
    const fresh = await postForm(base, '/signin', user.cookie, {
      email: 'again@example.com',
      password: 'correct horse battery',
    })
    assert.notEqual(fresh, copy)
    assert.equal(await dashboardStatus(base, fresh), 200)
    assert.equal(await dashboardStatus(base, copy), 302, 'the replaced session still works')
  })

  it('ends the session it replaces, of another account, and only that one', async () => {
    const first = await signUp(base, 'first')
    const elsewhere = await signIn(base, 'first@example.com', 'correct horse battery')
    const fresh = await postForm(base, '/signup', first.cookie, {
      email: 'second@example.com',
      slug: 'second',
      password: 'correct horse battery',
    })
    assert.equal(await dashboardStatus(base, fresh), 200)
    assert.equal(await dashboardStatus(base, first.cookie), 302, 'the replaced session still works')
    assert.equal(await dashboardStatus(base, elsewhere), 200, 'another browser was signed out')
  })
})
