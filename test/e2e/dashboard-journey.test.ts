/**
 * The customer's whole journey in a real browser (headless Chromium through playwright-core)
 * against a real burrowd on the dev payment provider: sign up, create a tunnel, copy its key,
 * run `burrow up` with it, see it online, hit the Free limit (402 in the page), upgrade through
 * the dev checkout, create the third tunnel, cancel, and see "cancels on DATE".
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { PLAN_IDS, PLANS } from '../../packages/server/src/plans.js'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import type { Child } from '../helpers/child.js'
import { ROOT, startClient, type Service } from '../helpers/stack.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function createTunnel(page: Page, base: string, name: string): Promise<number> {
  await page.goto(`${base}/dashboard`)
  await page.fill('#create-tunnel input[name=name]', name)
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) => r.url() === `${base}/dashboard/tunnels` && r.request().method() === 'POST',
    ),
    page.click('#create-tunnel button[type=submit]'),
  ])
  await page.waitForLoadState()
  return response.status()
}

describe('dashboard journey in a browser', { skip: !hasChromium, timeout: 180_000 }, () => {
  let dashboard: DashboardInBrowser
  let service: Service
  let page: Page
  let client: Child | undefined
  let base: string

  before(async () => {
    dashboard = await startDashboardInBrowser({
      env: { BURROW_BILLING_PROVIDER: 'dev' },
      clipboard: true,
    })
    ;({ service, page, base } = dashboard)
    page.on('dialog', (dialog) => void dialog.accept())
  })

  after(async () => {
    await client?.stop()
    await dashboard?.close()
  })

  it('signs up, runs a tunnel, upgrades past the Free limit and cancels', async () => {
    // Sign up.
    await page.goto(`${base}/signup`)
    await page.fill('#email', 'journey@example.com')
    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'journey')
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form button[type=submit]'),
    ])
    assert.match((await page.textContent('h1')) ?? '', /Tunnels/)

    // Create a tunnel and copy its key with the page's Copy button.
    assert.equal(await createTunnel(page, base, 'docs'), 201)
    const shown = (await page.textContent('#tunnel-key'))?.trim() ?? ''
    assert.match(shown, /^mtk_/)
    await page.click('button[data-copy=tunnel-key]')
    const copied = await page.evaluate<string>('navigator.clipboard.readText()')
    assert.equal(copied, shown)
    const publicUrl = (await page.textContent('#public-url'))?.trim() ?? ''
    assert.match(publicUrl, /^http:\/\/docs--journey\.localhost:\d+\/mcp$/)

    // Run burrow up with the copied key; the dashboard shows the tunnel online.
    client = await startClient(service, copied, [
      '--stdio',
      `${process.execPath} ${HELLO}`,
      '--name',
      'docs',
    ])
    await until(async () => {
      await page.goto(`${base}/dashboard`)
      return (await page.locator('[data-status=online]').count()) === 1
    })

    // The second tunnel fits the Free plan; the third is refused with 402, shown in the page.
    assert.equal(await createTunnel(page, base, 'second'), 201)
    assert.equal(await createTunnel(page, base, 'third'), 402)
    const refusal = await page.textContent('.notice.error')
    assert.match(refusal ?? '', /Free plan allows 2 tunnels?/)
    assert.match(refusal ?? '', /upgrade/i)

    // Upgrade to Pro through the dev checkout.
    await page.goto(`${base}/dashboard/billing`)
    assert.equal(await page.getAttribute('#plan-state', 'data-state'), 'free')
    await Promise.all([
      page.waitForURL(/\/dev\/paddle\//),
      page.click('[data-plan=pro] button[value=monthly]'),
    ])
    assert.match(await page.content(), /Pro/)
    await Promise.all([
      page.waitForURL(`${base}/dashboard/billing?notice=checkout`),
      page.click('button[type=submit]'),
    ])
    await until(async () => {
      await page.goto(`${base}/dashboard/billing`)
      return (await page.getAttribute('#plan-state', 'data-state')) === 'active'
    })
    assert.match((await page.textContent('#plan-state')) ?? '', /Pro, monthly, renews/)

    // Now the third tunnel is created.
    assert.equal(await createTunnel(page, base, 'third'), 201)
    await page.goto(`${base}/dashboard`)
    assert.equal(await page.locator('#tunnels tbody tr').count(), 3)

    // Cancel: paid limits stay until the period ends.
    await page.goto(`${base}/dashboard/billing`)
    await Promise.all([
      page.waitForURL(`${base}/dashboard/billing?notice=cancelled`),
      page.click('form[action="/dashboard/billing/cancel"] button'),
    ])
    await until(async () => {
      await page.goto(`${base}/dashboard/billing`)
      return (await page.getAttribute('#plan-state', 'data-state')) === 'cancels'
    })
    assert.match(
      (await page.textContent('#plan-state')) ?? '',
      /Pro, monthly, cancels on [A-Z][a-z]{2} \d{1,2}, \d{4}, then Free/,
    )
    await page.screenshot({ path: join(service.dataDir, 'journey.png') }).catch(() => undefined)
  })

  it('shows the catalog on the pricing page and the billing page, number for number', async () => {
    for (const path of ['/pricing', '/dashboard/billing']) {
      await page.goto(`${base}${path}`)
      for (const id of PLAN_IDS) {
        const plan = PLANS[id]
        const card = page.locator(`[data-plan=${id}]`)
        const attr = async (selector: string, name: string) =>
          Number(await card.locator(selector).getAttribute(name))
        assert.equal(await attr('[data-price-monthly]', 'data-price-monthly'), plan.priceMonthlyUsd)
        assert.equal(await attr('[data-price-annual]', 'data-price-annual'), plan.priceAnnualUsd)
        const quota = (name: string) => attr(`[data-quota=${name}]`, 'data-value')
        assert.equal(await quota('bandwidth'), plan.bandwidthBytesPerMonth, `${path} ${id}`)
        assert.equal(await quota('tool_calls'), plan.toolCallsPerMonth)
        assert.equal(await quota('tunnels'), plan.tunnels)
        assert.equal(await quota('sessions'), plan.sessionsPerTunnel)
        assert.equal(await quota('retention'), plan.historyRetentionHours)
        assert.ok(((await card.textContent()) ?? '').includes(`$${plan.priceMonthlyUsd} / month`))
      }
    }
    const pro = (await page.textContent('[data-plan=pro]')) ?? ''
    assert.match(pro, /25 GB data transfer/)
    assert.match(pro, /1,000,000 tool calls/)
  })
})
