/**
 * Sign-out from another site, in a real Chromium against a real burrowd: a page on another site
 * that posts a form to `/signout` carries no session cookie (SameSite=Lax) and no CSRF token, and
 * must leave the browser signed in. Before, the answer to such a post cleared the session cookie
 * anyway, so any page could sign a dashboard's browser out.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signUp } from '../helpers/web-client.js'

describe('sign-out from another site', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let other: Server
  let otherBase: string

  before(async () => {
    dashboard = await startDashboardInBrowser()
    // Another site: `localhost` is not the same site as `127.0.0.1`, where the dashboard is.
    other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(
        `<form method="post" action="${dashboard.base}/signout"></form>` +
          '<script>document.forms[0].submit()</script>',
      )
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    otherBase = `http://localhost:${(other.address() as AddressInfo).port}`
  })

  after(async () => {
    await dashboard?.close()
    await new Promise((resolve) => other?.close(resolve))
  })

  it("leaves the browser signed in when another site's form posts to /signout", async () => {
    const user = await signUp(dashboard.base, 'crosssite')
    await dashboard.useSession(user.cookie)
    const page = dashboard.page
    await page.goto(`${dashboard.base}/dashboard`)
    assert.equal(new URL(page.url()).pathname, '/dashboard', 'signed in to begin with')

    const signout = page.waitForResponse((r) => new URL(r.url()).pathname === '/signout')
    await page.goto(otherBase)
    // The post's answer sends the browser to /signin (which, signed in, sends it on), and
    // clears no cookie.
    const answer = await signout
    assert.equal(answer.status(), 303)
    assert.doesNotMatch((await answer.headerValue('set-cookie')) ?? '', /burrow_session=/)
    await page.waitForURL((url) => url.origin === dashboard.base && url.pathname !== '/signout')

    await page.goto(`${dashboard.base}/dashboard`)
    assert.equal(new URL(page.url()).pathname, '/dashboard', 'still signed in')
    const cookies = await page.context().cookies(dashboard.base)
    assert.ok(
      cookies.some((c) => c.name === 'burrow_session' && `${c.name}=${c.value}` === user.cookie),
      'the session cookie is kept',
    )
  })

  it('still signs out a post from the dashboard itself', async () => {
    const user = await signUp(dashboard.base, 'ownpage')
    await dashboard.useSession(user.cookie)
    const page = dashboard.page
    await page.goto(`${dashboard.base}/dashboard`)
    await page.click('form[action="/signout"] button[type=submit]')
    await page.waitForURL(`${dashboard.base}/signin`)
    await page.goto(`${dashboard.base}/dashboard`)
    assert.equal(new URL(page.url()).pathname, '/signin', 'signed out')
  })
})
