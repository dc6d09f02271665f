/**
 * The Traffic tab of a tunnel with no call yet: a guide to what to do to see traffic (run `burrow
 * up`, give an agent the tunnel, call a tool), and no table header over nothing (the live tail's
 * showed, empty). The live tail's table appears with its first call, the guide goes; filters that
 * match nothing say so. Driven in Chromium against a real burrowd and a real `burrow up`.
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
import { createTunnelInBrowser, signUpInBrowser } from '../helpers/dashboard-flows.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')

describe(
  'traffic: an empty state, not an empty table',
  { skip: !hasChromium, timeout: 120_000 },
  () => {
    let dashboard: DashboardInBrowser
    let service: Service
    let page: Page
    let base: string
    let client: Child | undefined
    let detail = ''
    let key = ''
    let publicUrl = ''

    before(async () => {
      dashboard = await startDashboardInBrowser()
      ;({ service, page, base } = dashboard)
      await signUpInBrowser(page, base, 'quiet')
      ;({ key, publicUrl, detail } = await createTunnelInBrowser(page, base, 'quiet'))
      // The test calls without signing in: open the tunnel to anyone.
      await page.goto(`${base}${detail}/access`)
      await page.check('#access-form input[name=mode][value=public]')
      await Promise.all([
        page.waitForURL(/\/access/),
        page.click('#access-form button[type=submit]'),
      ])
    })

    after(async () => {
      await client?.stop()
      await dashboard?.close()
    })

    /** How many table headers a reader can see. */
    const headers = () =>
      page.evaluate<number>(
        `[...document.querySelectorAll('thead')].filter((h) => h.offsetParent !== null).length`,
      )

    it('no call yet: what to do to see traffic, and no header over nothing', async () => {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 })
        await page.goto(`${base}${detail}/traffic`)
        assert.equal(await page.isVisible('#no-traffic'), true, `${width}`)
        const guide = (await page.textContent('#no-traffic')) ?? ''
        assert.match(guide, /No traffic yet/)
        assert.match(guide, /Run burrow up with this tunnel's key/)
        assert.equal((await page.locator(`#no-traffic a[href="${detail}"]`).count()) >= 1, true)
        assert.equal(await page.locator(`#no-traffic a[href="${detail}/access"]`).count(), 1)
        assert.equal(await headers(), 0, `a table header shows at ${width}px`)
        assert.equal(await page.isVisible('#live-tail'), false)
        assert.equal(await page.locator('form.filters').count(), 0, 'filters over nothing')
        assert.equal(await page.locator('#no-calls').count(), 0, 'two "no calls" messages')
        const widths = await page.evaluate<{ page: number; viewport: number }>(
          '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
        )
        assert.ok(widths.page <= widths.viewport, `${width}: ${JSON.stringify(widths)}`)
      }
      await page.setViewportSize({ width: 1280, height: 844 })
    })

    it('online: the guide says so; the first call shows the live table and the guide goes', async () => {
      client = await startClient(service, key, ['--stdio', `node ${HELLO}`])
      await page.goto(`${base}${detail}/traffic`)
      assert.match((await page.textContent('#no-traffic')) ?? '', /burrow up is connected/)
      await page.locator('#live-status', { hasText: /^Live/ }).waitFor()
      const session = await openSession(publicUrl)
      const call = await postMcp(publicUrl, toolCall(1, 'hello', { name: 'first' }), session)
      assert.equal(call.status, 200, call.text)
      await page.locator('#live-tail tbody tr').first().waitFor({ timeout: 15_000 })
      assert.equal(await page.isVisible('#no-traffic'), false)
      assert.equal(await page.isVisible('#live-tail thead'), true)
    })

    it('with history: its table, and no empty live header until a live call', async () => {
      for (;;) {
        await page.goto(`${base}${detail}/traffic`)
        if ((await page.locator('#calls tbody tr').count()) >= 1) break
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      assert.equal(await page.locator('#no-traffic').count(), 0)
      assert.equal(await page.locator('form.filters').count(), 1)
      assert.equal(await page.isVisible('#live-tail'), false)
      assert.equal(await headers(), 1)
    })

    it('filters that match nothing say so, with the filters still there', async () => {
      await page.goto(`${base}${detail}/traffic?tool=nothing-like-this`)
      assert.equal(await page.locator('#no-traffic').count(), 0)
      assert.equal(await page.locator('form.filters').count(), 1)
      assert.match(
        (await page.textContent('#no-calls')) ?? '',
        /^No calls recorded match these filters/,
      )
    })

    it('hostile: markup and a long filter are text, and the page stays 390 px wide', async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      const tool = `<img src=x id=evil>${'t'.repeat(3000)}`
      const res = await page.goto(`${base}${detail}/traffic?tool=${encodeURIComponent(tool)}`)
      assert.equal(res?.status(), 200)
      assert.equal(await page.locator('#evil').count(), 0)
      // The filter is cut as stored names are (200 characters), and shown as typed.
      const shown = await page.inputValue('#f-tool')
      assert.ok(shown.startsWith('<img src=x id=evil>ttt') && shown.length <= 200, shown)
      const widths = await page.evaluate<{ page: number; viewport: number }>(
        '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
      )
      assert.ok(widths.page <= widths.viewport, JSON.stringify(widths))
    })
  },
)
