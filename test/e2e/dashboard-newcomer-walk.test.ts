/**
 * What a newcomer tripped on walking through the dashboard with a tunnel in use, driven in
 * Chromium against a real burrowd: every page writes a tunnel's public URL with the same
 * placeholders (`<subdomain>--<account>`); a tunnel's "This month" counts the calls just made,
 * not the last meter snapshot's; and at a phone's 390 px no page scrolls sideways (wide tables
 * scroll inside themselves, a long path in a notice wraps); the Tools tab does not say the owner
 * approved tools the first listing made the baseline; the Pro plan says its custom domain is one
 * per account, as Scale says one per tunnel; the webhooks page names both events.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import type { Child } from '../helpers/child.js'
import { openSession, postMcp, toolCall } from '../helpers/quota-stack.js'
import { ROOT, startClient, type Service } from '../helpers/stack.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')

/** How wide the page is drawn, against the viewport. */
interface Widths {
  readonly page: number
  readonly viewport: number
}

describe('dashboard: a newcomer’s walk', { skip: !hasChromium, timeout: 180_000 }, () => {
  let dashboard: DashboardInBrowser
  let service: Service
  let page: Page
  let base: string
  let client: Child | undefined
  let detail = ''

  before(async () => {
    // No meter snapshot is taken while the test runs: whatever the pages count is live.
    dashboard = await startDashboardInBrowser({ env: { BURROW_METER_SNAPSHOT_SECS: '3600' } })
    ;({ service, page, base } = dashboard)
  })

  after(async () => {
    await client?.stop()
    await dashboard?.close()
  })

  it('writes the public URL form with the same placeholders on every page', async () => {
    const suffix = `.localhost:${service.port}/mcp`
    await page.goto(`${base}/pricing`)
    assert.equal(
      await page.textContent('#pricing-url-form'),
      `http://<subdomain>--<account>${suffix}`,
    )
    await page.goto(`${base}/signup`)
    assert.equal(await page.textContent('#url-form'), `http://<subdomain>--<account>${suffix}`)
    await page.fill('#email', 'walker@example.com')
    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'walker')
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form[action="/signup"] button[type=submit]'),
    ])
    assert.equal(await page.textContent('#tunnel-url-form'), `http://<subdomain>--walker${suffix}`)
    await page.goto(`${base}/pricing`)
    assert.equal(await page.textContent('#pricing-url-form'), `http://<subdomain>--walker${suffix}`)
  })

  it('"This month" counts the calls just made, and says the counts are live', async () => {
    await page.goto(`${base}/dashboard`)
    await page.fill('#create-tunnel input[name=name]', 'hello')
    await Promise.all([
      page.waitForURL(`${base}/dashboard/tunnels`),
      page.click('#create-tunnel button[type=submit]'),
    ])
    const key = (await page.textContent('#tunnel-key')) ?? ''
    const publicUrl = (await page.textContent('#public-url')) ?? ''
    detail = (await page.getAttribute('a:text("Tunnel details")', 'href')) ?? ''
    await page.goto(`${base}${detail}/access`)
    await page.check('#access-form input[name=mode][value=public]')
    await Promise.all([page.waitForURL(/\/access/), page.click('#access-form button[type=submit]')])
    client = await startClient(service, key, ['--stdio', `node ${HELLO}`])
    const session = await openSession(publicUrl)
    const list = await postMcp(
      publicUrl,
      { jsonrpc: '2.0', id: 'l', method: 'tools/list' },
      session,
    )
    assert.equal(list.status, 200, list.text)
    for (let i = 0; i < 3; i++) {
      const call = await postMcp(publicUrl, toolCall(i, 'add', { a: i, b: 1 }), session)
      assert.equal(call.status, 200, call.text)
    }
    await page.goto(`${base}${detail}`)
    assert.equal(await page.textContent('#usage-tool-calls'), '3 of 100,000')
    assert.doesNotMatch((await page.textContent('#usage-bandwidth')) ?? '', /^0 B/)
    assert.match((await page.textContent('#usage-note')) ?? '', /^Live counts; counters reset /)
    await page.goto(`${base}/dashboard/billing`)
    assert.match((await page.textContent('#meters tbody')) ?? '', /3 of 100,000/)
    assert.match((await page.textContent('#meters')) ?? '', /Live counts/)
  })

  it('the Tools tab does not say the owner approved the baseline; plans say how many domains', async () => {
    await page.goto(`${base}${detail}/tools`)
    assert.equal(
      await page.textContent('#no-changes'),
      'No tool has changed since it was approved (the first tools/list counts as approved).',
    )
    await page.goto(`${base}/dashboard/billing`)
    const pro = (await page.textContent('.plan[data-plan=pro] ul')) ?? ''
    const scale = (await page.textContent('.plan[data-plan=scale] ul')) ?? ''
    assert.match(pro, /Custom domains \(one per account\)/)
    assert.match(scale, /Custom domains \(one per tunnel\)/)
    // The webhooks page names both events an endpoint receives (it named quota.warning alone).
    await page.goto(`${base}/dashboard/webhooks`)
    const events = (await page.textContent('#webhook-events')) ?? ''
    assert.match(events, /quota\.warning/)
    assert.match(events, /tool\.changed/)
  })

  it('no page scrolls sideways at 390 px', async () => {
    // The history is written in batches: wait until the traffic tab lists the calls.
    for (;;) {
      await page.goto(`${base}${detail}/traffic`)
      if ((await page.locator('table:not(#live-tail) tbody tr').count()) >= 3) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    await page.setViewportSize({ width: 390, height: 800 })
    const paths = [
      '/dashboard',
      detail,
      `${detail}/traffic`,
      `${detail}/metrics`,
      `${detail}/tools`,
      `${detail}/access`,
      '/dashboard/billing',
      `${detail}/no-such-tab-with-a-rather-long-name-that-does-not-break`,
    ]
    for (const path of paths) {
      await page.goto(`${base}${path}`)
      const widths = await page.evaluate<Widths>(
        '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
      )
      assert.ok(widths.page <= widths.viewport, `${path} is ${widths.page} px wide`)
    }
  })
})
