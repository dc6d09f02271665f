/**
 * The Metrics tab on a phone (390×844): its charts fit the screen (no sideways scroll, each chart
 * inside the viewport) and stay legible: their labels and figures are drawn at least 12 px high
 * (an SVG drawn 880 units wide and shrunk to the screen wrote them 4 px high) and none overlaps
 * another. Driven in Chromium against a real burrowd and a real `burrow up`.
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
import { ROOT, startClient } from '../helpers/stack.js'
import { createTunnelInBrowser, signUpInBrowser } from '../helpers/dashboard-flows.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')
const LONG_TOOL = 'search_the_team_knowledge_base_by_title_and_body_text_then_summarise'
/** A tool name as long as metrics keep one (200 characters), with nowhere to break it. */
const WIDEST_TOOL = 'w'.repeat(200)

/** One label of a chart, where it is drawn. */
interface Label {
  readonly text: string
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}

/** What the page measures of its charts. */
interface Geometry {
  readonly page: number
  readonly viewport: number
  readonly charts: readonly { id: string; left: number; right: number }[]
  readonly labels: readonly Label[]
}

const MEASURE = `(() => {
  const box = (el) => el.getBoundingClientRect()
  const charts = ['#calls-chart-box', '#calls-chart', '#latency-chart'].map((id) => {
    const b = box(document.querySelector(id))
    return { id, left: b.left, right: b.right }
  })
  const labels = [...document.querySelectorAll(
    '#calls-chart-box .chart-y span, #calls-chart-box .chart-x span, #latency-chart .latency-label, #latency-chart .latency-figures',
  )].map((el) => {
    const b = box(el)
    return { text: el.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom }
  })
  return {
    page: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    charts,
    labels,
  }
})()`

describe('metrics: charts on a phone', { skip: !hasChromium, timeout: 150_000 }, () => {
  let dashboard: DashboardInBrowser
  let page: Page
  let base: string
  let client: Child | undefined
  let detail = ''

  before(async () => {
    dashboard = await startDashboardInBrowser()
    ;({ page, base } = dashboard)
    await signUpInBrowser(page, base, 'phone')
    const made = await createTunnelInBrowser(page, base, 'phone')
    const { key, publicUrl } = made
    detail = made.detail
    await page.goto(`${base}${detail}/access`)
    await page.check('#access-form input[name=mode][value=public]')
    await Promise.all([page.waitForURL(/\/access/), page.click('#access-form button[type=submit]')])
    client = await startClient(dashboard.service, key, ['--stdio', `node ${HELLO}`])
    const session = await openSession(publicUrl)
    for (let i = 0; i < 3; i++) {
      const call = await postMcp(publicUrl, toolCall(i, 'hello', { name: `call ${i}` }), session)
      assert.equal(call.status, 200, call.text)
    }
    // A tool the server does not know, with a name as long as real ones get: an answer too.
    const call = await postMcp(publicUrl, toolCall(9, LONG_TOOL, {}), session)
    assert.equal(call.status, 200, call.text)
    const widest = await postMcp(publicUrl, toolCall(10, WIDEST_TOOL, {}), session)
    assert.equal(widest.status, 200, widest.text)
    // Metrics are written in the background: reload until the table has both tools.
    for (;;) {
      await page.goto(`${base}${detail}/metrics`)
      if (
        (await page.locator(`#metrics tr[data-tool="${LONG_TOOL}"]`).count()) &&
        (await page.locator(`#metrics tr[data-tool="${WIDEST_TOOL}"]`).count())
      )
        break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  })

  after(async () => {
    await client?.stop()
    await dashboard?.close()
  })

  for (const window of ['1h', '24h', '30d']) {
    it(`the last ${window} at 390×844: inside the screen, labels 12 px or more, none overlapping`, async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${base}${detail}/metrics?window=${window}`)
      const g = await page.evaluate<Geometry>(MEASURE)
      const at = JSON.stringify(g)
      assert.ok(g.page <= g.viewport, `the page scrolls sideways: ${at}`)
      for (const chart of g.charts) {
        assert.ok(
          chart.left >= 0 && chart.right <= g.viewport,
          `${chart.id} leaves the screen: ${at}`,
        )
      }
      // Both axes' ends, and a label and figures per latency row (hello, the long tool, list).
      assert.ok(g.labels.length >= 4 + 2 * 2, at)
      for (const label of g.labels) {
        assert.ok(label.bottom - label.top >= 12, `"${label.text}" is drawn too small: ${at}`)
        assert.ok(label.left >= 0 && label.right <= g.viewport, `"${label.text}" is cut: ${at}`)
      }
      for (const [i, a] of g.labels.entries()) {
        for (const b of g.labels.slice(i + 1)) {
          const overlap =
            a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
          assert.ok(!overlap, `"${a.text}" overlaps "${b.text}": ${at}`)
        }
      }
      // The bars are drawn at a size a reader sees.
      const bars = await page.locator('#calls-chart').boundingBox()
      assert.ok(bars && bars.width >= 250 && bars.height >= 100, JSON.stringify(bars))
    })
  }

  it('at 1280 px a 200-character tool name wraps in the table, not the page sideways', async () => {
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${base}${detail}/metrics`)
    const g = await page.evaluate<Geometry>(MEASURE)
    assert.ok(g.page <= g.viewport, `the page scrolls sideways: ${g.page} > ${g.viewport}`)
    const table = await page.locator('#metrics').boundingBox()
    assert.ok(table && table.x + table.width <= g.viewport, JSON.stringify(table))
  })

  it('at 1280 px the chart is as wide as its card and its labels keep their size', async () => {
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.goto(`${base}${detail}/metrics`)
    const g = await page.evaluate<Geometry>(MEASURE)
    // One line each, but the 200-character name's, which wraps within the chart.
    for (const label of g.labels.filter((l) => !l.text.includes(WIDEST_TOOL.slice(0, 20))))
      assert.ok(label.bottom - label.top < 30, JSON.stringify(label))
    const bars = await page.locator('#calls-chart').boundingBox()
    assert.ok(bars && bars.width > 700, JSON.stringify(bars))
  })
})
