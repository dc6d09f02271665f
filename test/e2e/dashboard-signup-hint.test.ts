/**
 * The sign-up page's hint shows the public URL with the account name as it is typed (it showed
 * `<account>` whatever was typed), says when the name is not one the form takes yet, and is
 * what a screen reader reads for the field. Driven in Chromium against a real burrowd.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'

describe('sign-up: a live URL hint', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let page: Page
  let base: string
  let suffix = ''

  before(async () => {
    dashboard = await startDashboardInBrowser()
    ;({ page, base } = dashboard)
    suffix = `.localhost:${dashboard.service.port}/mcp`
  })

  after(async () => {
    await dashboard?.close()
  })

  const hint = () => page.textContent('#url-form')
  const problemShown = () => page.isVisible('#slug-problem')

  it('follows the account name key by key, and back to the placeholder when cleared', async () => {
    await page.goto(`${base}/signup`)
    assert.equal(await hint(), `http://<subdomain>--<account>${suffix}`)
    assert.equal(await page.getAttribute('#slug', 'aria-describedby'), 'slug-hint')
    await page.click('#slug')
    await page.keyboard.type('my')
    assert.equal(await hint(), `http://<subdomain>--my${suffix}`)
    await page.keyboard.type('-team')
    assert.equal(await hint(), `http://<subdomain>--my-team${suffix}`)
    assert.equal(await problemShown(), false)
    for (let i = 0; i < 'my-team'.length; i++) await page.keyboard.press('Backspace')
    assert.equal(await hint(), `http://<subdomain>--<account>${suffix}`)
    assert.equal(await problemShown(), false, 'an empty field is not yet wrong')
  })

  it('says when the name is not one the form takes, and stops saying it once it is', async () => {
    await page.goto(`${base}/signup`)
    for (const bad of ['Acme', 'two--hyphens', 'trail-', 'under_score']) {
      await page.fill('#slug', bad)
      assert.equal(await problemShown(), true, bad)
      assert.equal(await hint(), `http://<subdomain>--${bad}${suffix}`)
    }
    await page.fill('#slug', 'acme-2')
    assert.equal(await problemShown(), false)
  })

  it('a refused sign-up shows the page again with the name typed in the hint', async () => {
    await page.goto(`${base}/signup`)
    await page.fill('#email', 'hint@example.com')
    await page.fill('#password', 'password123')
    await page.fill('#slug', 'hinted')
    await page.click('form[action="/signup"] button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.equal(await hint(), `http://<subdomain>--hinted${suffix}`)
    await page.fill('#slug', 'hinted-again')
    assert.equal(await hint(), `http://<subdomain>--hinted-again${suffix}`)
  })

  it('hostile: markup is shown as text, and a long pasted name wraps at 390 px', async () => {
    await page.goto(`${base}/signup`)
    const evil = '<img src=x id=evil onerror=alert(1)>'
    await page.fill('#slug', evil)
    assert.equal(await hint(), `http://<subdomain>--${evil.slice(0, 40)}${suffix}`)
    assert.equal(await page.locator('#evil').count(), 0)
    assert.equal(await problemShown(), true)
    await page.setViewportSize({ width: 390, height: 844 })
    // Past the field's maxlength, as a script could set it, typed into again many times over.
    await page.evaluate(`document.getElementById('slug').removeAttribute('maxlength')`)
    await page.fill('#slug', 'a'.repeat(5000))
    for (let i = 0; i < 50; i++) await page.keyboard.press('b')
    const widths = await page.evaluate<{ page: number; viewport: number }>(
      '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
    )
    assert.ok(widths.page <= widths.viewport, JSON.stringify(widths))
    assert.equal(await hint(), `http://<subdomain>--${'a'.repeat(5000)}${'b'.repeat(50)}${suffix}`)
  })
})
