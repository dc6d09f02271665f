/**
 * The account page in a real browser (headless Chromium through playwright-core) against a real
 * burrowd: a signed-in owner changes the password (the current one is checked; a wrong one is
 * refused and counted like a failed sign-in), which signs out every other browser and keeps this
 * one; "Sign out other browsers" does the same without a new password. Before, the only way to
 * change a password or end a session left signed in elsewhere (a lost laptop) was a reset link
 * by mail.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signIn, signUp, type WebUser } from '../helpers/web-client.js'

const FIRST = 'correct horse battery'
const SECOND = 'purple walrus teaspoon'

describe('the account page in a browser', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let user: WebUser
  let page: Page
  let base: string
  const email = 'settings@example.com'
  /** Whether the session cookie `cookie` still opens the dashboard. */
  const signedIn = async (cookie: string) =>
    (await fetch(`${base}/dashboard`, { headers: { cookie }, redirect: 'manual' })).status === 200
  /** The browser's session cookie now (the account page's forms give it a new one). */
  const browserSession = async () => {
    const found = (await page.context().cookies()).find((c) => c.name === 'burrow_session')
    assert.ok(found, 'the browser has a session')
    return `${found.name}=${found.value}`
  }
  /** A post of the account page's form `path` with session `cookie`, and its CSRF token. */
  const formAs = async (
    cookie: string,
    path: string,
    fields: Record<string, string>,
    csrf?: string,
  ) => {
    const html = await (await fetch(`${base}/dashboard/account`, { headers: { cookie } })).text()
    const token = csrf ?? /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? ''
    return fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: token, ...fields }),
    })
  }

  before(async () => {
    dashboard = await startDashboardInBrowser()
    ;({ page, base } = dashboard)
    user = await signUp(base, 'settings', FIRST)
    await dashboard.useSession(user.cookie)
    page.on('dialog', (dialog) => void dialog.accept())
  })

  after(async () => {
    await dashboard?.close()
  })

  it('refuses a wrong current password, and changes it with the right one', async () => {
    const elsewhere = await signIn(base, email, FIRST)
    assert.ok(await signedIn(elsewhere))
    await page.goto(`${base}/dashboard`)
    await Promise.all([
      page.waitForURL(/\/dashboard\/account$/),
      page.click('a[href="/dashboard/account"]'),
    ])
    assert.match((await page.textContent('main')) ?? '', /settings@example\.com/)

    await page.fill('#current-password', 'not my password')
    await page.fill('#new-password', SECOND)
    const wrong = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/dashboard/account/password')),
      page.click('#change-password button'),
    ])
    assert.equal(wrong[0].status(), 403)
    assert.match((await page.textContent('main')) ?? '', /current password is wrong/)
    assert.ok(await signedIn(elsewhere), 'nothing changed')

    await page.fill('#current-password', FIRST)
    await page.fill('#new-password', SECOND)
    await Promise.all([
      page.waitForURL(/notice=password_changed/),
      page.click('#change-password button'),
    ])
    assert.match((await page.textContent('main')) ?? '', /new password is set/)
    assert.equal(await signedIn(elsewhere), false, 'the other browser was signed out')
    await page.goto(`${base}/dashboard`)
    assert.match(page.url(), /\/dashboard$/, 'this browser stays signed in')

    // The old password no longer signs in; the new one does.
    await assert.rejects(signIn(base, email, FIRST))
    assert.ok(await signedIn(await signIn(base, email, SECOND)))
  })

  it('refuses a new password the sign-up form would refuse, and a missing CSRF token', async () => {
    const session = await browserSession()
    const short = await formAs(session, '/dashboard/account/password', {
      current: SECOND,
      password: 'short',
    })
    assert.equal(short.status, 400)
    assert.match(await short.text(), /at least 8 characters/)
    const forged = await formAs(
      session,
      '/dashboard/account/password',
      { current: SECOND, password: 'another fine password' },
      'not-the-token',
    )
    assert.equal(forged.status, 403)
    await forged.body?.cancel()
    assert.ok(await signedIn(await signIn(base, email, SECOND)), 'the password stayed')
  })

  it('signs out every other browser and keeps this one', async () => {
    const laptop = await signIn(base, email, SECOND)
    const phone = await signIn(base, email, SECOND)
    await page.goto(`${base}/dashboard/account`)
    await Promise.all([
      page.waitForURL(/notice=signed_out_others/),
      page.click('#sign-out-others button'),
    ])
    assert.match((await page.textContent('main')) ?? '', /was signed out/)
    assert.equal(await signedIn(laptop), false)
    assert.equal(await signedIn(phone), false)
    await page.goto(`${base}/dashboard/tokens`)
    assert.match(page.url(), /\/dashboard\/tokens$/, 'this browser stays signed in')
    const api = await user.api('GET', '/api/tunnels')
    assert.equal(api.status, 200, 'API tokens stay')
  })

  it('stops guessing the current password from a stolen session like a sign-in', async () => {
    const stolen = await browserSession()
    let last = 0
    for (let i = 0; i < 12; i++) {
      const res = await formAs(stolen, '/dashboard/account/password', {
        current: `guess number ${i}`,
        password: 'an entirely new password',
      })
      last = res.status
      await res.body?.cancel()
    }
    assert.equal(last, 429, 'failures are limited per account')
  })
})
