/**
 * Webhook endpoints in a real browser (headless Chromium through playwright-core) against a real
 * burrowd: an endpoint added on the Webhooks page shows its signing secret; "Rotate secret"
 * replaces it and says the previous one signs too for a day; the JSON API rotates the same way,
 * and another account's endpoint is not found.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

describe('webhook endpoints in a browser', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let user: WebUser
  let page: Page
  let base: string

  before(async () => {
    dashboard = await startDashboardInBrowser()
    ;({ page, base } = dashboard)
    user = await signUp(base, 'hooks')
    await dashboard.useSession(user.cookie)
    page.on('dialog', (dialog) => void dialog.accept())
  })

  after(async () => {
    await dashboard?.close()
  })

  it('adds an endpoint and rotates its secret from its page', async () => {
    await page.goto(`${base}/dashboard/webhooks`)
    await page.fill('#url', 'https://hooks.example.com/burrow')
    await Promise.all([
      page.waitForURL(/\/dashboard\/webhooks\/we_/),
      page.click('form.card button'),
    ])
    const first = await page.textContent('#webhook-secret')
    assert.match(first ?? '', /^whsec_/)
    await Promise.all([
      page.waitForURL(/notice=secret_rotated/),
      page.click('form[action$="/rotate-secret"] button'),
    ])
    const second = await page.textContent('#webhook-secret')
    assert.match(second ?? '', /^whsec_/)
    assert.notEqual(second, first)
    assert.match((await page.textContent('main')) ?? '', /previous secret too/)
  })

  it('rotates through the API, and finds no other account’s endpoint', async () => {
    const made = await user.api<{ id: string; secret: string }>('POST', '/api/webhooks', {
      url: 'https://hooks.example.com/api',
    })
    assert.equal(made.status, 201)
    const rotated = await user.api<{ secret: string; previous_secret_expires_at: string }>(
      'POST',
      `/api/webhooks/${made.json.id}/rotate-secret`,
    )
    assert.equal(rotated.status, 200)
    assert.match(rotated.json.secret, /^whsec_/)
    assert.notEqual(rotated.json.secret, made.json.secret)
    const until = Date.parse(rotated.json.previous_secret_expires_at) - Date.now()
    assert.ok(
      until > 23 * 3600_000 && until <= 24 * 3600_000,
      rotated.json.previous_secret_expires_at,
    )
    const shown = await user.api<{ secret: string }>('GET', `/api/webhooks/${made.json.id}`)
    assert.equal(shown.json.secret, rotated.json.secret)
    const other = await signUp(base, 'other')
    const refused = await other.api('POST', `/api/webhooks/${made.json.id}/rotate-secret`)
    assert.equal(refused.status, 404)
    assert.equal(
      (await user.api<{ secret: string }>('GET', `/api/webhooks/${made.json.id}`)).json.secret,
      rotated.json.secret,
    )
  })
})
