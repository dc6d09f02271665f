/**
 * The OAuth consent page in a real Chromium against a real burrowd, as a hostile client would
 * use it: the page cannot be framed, and a click that reaches Approve without any gesture made on
 * the page (a page swapped in under the owner's double-click, the cursor already resting where
 * Approve appears) approves nothing. A pointer that moves, or a key, enables it.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

describe('the consent page against clickjacking', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let owner: WebUser
  let page: Page
  let consentUrl: string
  let callback: Server
  let REDIRECT: string
  const posted: string[] = []
  const called: string[] = []

  before(async () => {
    // The client's redirect URI: a server on loopback that records what it is sent.
    callback = createServer((req, res) => {
      if (req.url?.startsWith('/callback')) called.push(`http://127.0.0.1${req.url}`)
      res.end('back at the client')
    })
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
    REDIRECT = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`
    dashboard = await startDashboardInBrowser()
    page = dashboard.page
    owner = await signUp(dashboard.base, 'clicked')
    const made = await owner.api<{ tunnel: { mcp_url: string } }>('POST', '/api/tunnels', {
      name: 'clicked',
    })
    const registered = (await (
      await fetch(`${owner.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'A game', redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
    consentUrl = `${owner.base}/oauth/authorize?${new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: made.json.tunnel.mcp_url,
    }).toString()}`
    await dashboard.useSession(owner.cookie)
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().startsWith(`${owner.base}/oauth/authorize`)) {
        posted.push(r.url())
      }
    })
  })

  after(async () => {
    await dashboard?.close()
    callback?.close()
  })

  it('cannot be framed by another site', async () => {
    const res = await fetch(consentUrl, { headers: { cookie: owner.cookie } })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
    assert.equal(res.headers.get('x-frame-options'), 'DENY')
  })

  it('ignores a click that lands on Approve before any gesture on the page', async () => {
    // Where Approve appears, found once; then the cursor rests there while the page is swapped in.
    await page.goto(consentUrl)
    const box = await page.locator('#approve').boundingBox()
    assert.ok(box)
    const x = box.x + box.width / 2
    const y = box.y + box.height / 2
    await page.goto('about:blank')
    await page.mouse.move(x, y)
    await page.goto(consentUrl)
    await page.mouse.down()
    await page.mouse.up()
    assert.equal(await page.locator('#approve').isDisabled(), true)
    assert.equal(await page.locator('#deliberate-hint').isVisible(), true)

    // The owner reads the page, moves the pointer and approves: the one and only approval.
    await page.mouse.move(x - 60, y - 40)
    await page.mouse.move(x, y)
    await Promise.all([page.waitForURL(`${REDIRECT}**`), page.click('#approve')])
    assert.equal(posted.length, 1)
    assert.equal(called.length, 1)
    assert.ok(new URL(called[0]!).searchParams.get('code'))
  })

  it('enables Approve for the keyboard too', async () => {
    await page.goto(consentUrl)
    assert.equal(await page.locator('#approve').isDisabled(), true)
    await page.keyboard.press('Tab')
    assert.equal(await page.locator('#approve').isDisabled(), false)
    assert.equal(await page.locator('#deliberate-hint').isVisible(), false)
  })
})
