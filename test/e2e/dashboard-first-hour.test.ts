/**
 * The dashboard's rough edges a new user met, each driven in Chromium against a real burrowd:
 * the landing page says what Burrow is, the three steps and links pricing; a favicon; the
 * sign-up hint shows this service's real URL form and the account-name field's pattern works in
 * the browser (and its errors say "Account name"); with no mail server, the confirmation banner
 * and "Check your email" link to the dev outbox, where the mail is; `/dashboard/tunnels` (whose
 * create form shows the URL a tunnel gets) and 404 pages keep the signed-in menu; the "Run it"
 * command wraps inside its box (screenshots measured at phone and desktop widths) and copies; a
 * tunnel's page shows this month's usage and its recent calls; the Metrics tab draws every label
 * inside its charts' cards at phone and desktop widths (a long tool name, the figures right of
 * the bars) and its 24-hour axis says
 * which day each end is, in UTC; the Policy tab dates its versions as the other pages do.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import type { Child } from '../helpers/child.js'
import { openSession, postMcp, toolCall } from '../helpers/quota-stack.js'
import { ROOT, startClient, type Service } from '../helpers/stack.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')
const LONG_NAME = 'a rather long tunnel name for the team knowledge base server'
const LONG_TOOL = 'search_the_team_knowledge_base_by_title_and_body_text_then_summarise'

/** Where the "Run it" command is drawn, as the page measures it. */
interface Box {
  readonly scrollWidth: number
  readonly clientWidth: number
  readonly preRight: number
  readonly buttonRight: number
  readonly cardRight: number
  /** The command's top and bottom in the viewport, once scrolled into view. */
  readonly top: number
  readonly bottom: number
  readonly pageWidth: number
  readonly viewport: number
}

describe('dashboard: the first hour', { skip: !hasChromium, timeout: 180_000 }, () => {
  let dashboard: DashboardInBrowser
  let service: Service
  let browser: Browser
  let page: Page
  let base: string
  let client: Child | undefined
  const warnings: string[] = []
  /** The tunnel's page and public URL, once the "Run it" test made it. */
  let detail = ''
  let publicUrl = ''

  before(async () => {
    dashboard = await startDashboardInBrowser({
      env: { BURROW_METER_SNAPSHOT_SECS: '1' },
      clipboard: true,
    })
    ;({ service, browser, page, base } = dashboard)
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text())
    })
  })

  after(async () => {
    await client?.stop()
    await dashboard?.close()
  })

  it('landing page: what Burrow is, three steps, pricing, and a favicon', async () => {
    await page.goto(`${base}/`)
    assert.match((await page.textContent('#what')) ?? '', /MCP server that runs on your machine/)
    assert.match(
      (await page.textContent('#what')) ?? '',
      new RegExp(`http://files--you\\.localhost:${service.port}/mcp`),
    )
    assert.equal(await page.locator('#steps li').count(), 3)
    assert.equal(await page.getAttribute('#pricing-link', 'href'), '/pricing')
    const icon = await page.evaluate<{
      status: number
      type: string
      ico: number
    } | null>(`(async () => {
      const link = document.querySelector('link[rel=icon]')
      if (!link) return null
      const [svg, ico] = await Promise.all([fetch(link.href), fetch('/favicon.ico')])
      return { status: svg.status, type: svg.headers.get('content-type'), ico: ico.status }
    })()`)
    assert.deepEqual(icon, { status: 200, type: 'image/svg+xml', ico: 200 })
    await Promise.all([page.waitForURL(`${base}/pricing`), page.click('#pricing-link')])
  })

  it('sign-up: the real URL form, a pattern Chromium applies, and "Account name" errors', async () => {
    await page.goto(`${base}/signup`)
    assert.equal(
      await page.textContent('#url-form'),
      `http://<subdomain>--<account>.localhost:${service.port}/mcp`,
    )
    const validity = async (value: string) => {
      await page.fill('#slug', value)
      return page.evaluate<boolean>(`document.getElementById('slug').validity.patternMismatch`)
    }
    assert.equal(await validity('my-team'), false)
    assert.equal(await validity('a'), false)
    for (const bad of ['Bad', 'two--hyphens', '-lead', 'trail-', 'under_score']) {
      assert.equal(await validity(bad), true, `${bad} passes the pattern`)
    }
    assert.ok(!warnings.some((w) => /pattern/i.test(w)), warnings.join('\n'))

    // What the server says when the browser's check is skipped.
    await page.fill('#email', 'first@example.com')
    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'two--hyphens')
    await page.evaluate(`document.querySelector('form[action="/signup"]').noValidate = true`)
    await page.click('form[action="/signup"] button[type=submit]')
    await page.waitForSelector('.notice.error')
    const error = (await page.textContent('.notice.error')) ?? ''
    assert.match(error, /^Account name "two--hyphens" must not contain "--"/)
    assert.ok(!/slug/i.test(error), error)

    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'acme')
    await page.click('form[action="/signup"] button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match((await page.textContent('.notice.error')) ?? '', /^Account name "acme" is taken/)

    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'first')
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form[action="/signup"] button[type=submit]'),
    ])
  })

  it('with no mail server, the banner and "Check your email" point to the dev outbox', async () => {
    // Signed up just now: the banner asks to confirm the address, and says where the link is.
    const banner = (await page.textContent('#verify-banner')) ?? ''
    assert.match(banner, /No mail server is configured/)
    await Promise.all([page.waitForURL(`${base}/dev/outbox`), page.click('#outbox-link')])
    assert.match((await page.textContent('.mail-to')) ?? '', /^first@example\.com$/)
    assert.match((await page.textContent('.mail-text')) ?? '', /\/verify\?token=/)

    // "Forgot your password?" from a browser that is not signed in.
    const other = await browser.newContext()
    try {
      const forgot = await other.newPage()
      await forgot.goto(`${base}/forgot`)
      await forgot.fill('#email', 'first@example.com')
      await forgot.click('form[action="/forgot"] button[type=submit]')
      await forgot.waitForSelector('#reset-sent')
      await Promise.all([forgot.waitForURL(`${base}/dev/outbox`), forgot.click('#outbox-link')])
      assert.match((await forgot.textContent('.mail-text')) ?? '', /\/reset\?token=/)
    } finally {
      await other.close()
    }
  })

  it('/dashboard/tunnels lists tunnels, and a 404 keeps the signed-in menu', async () => {
    const list = await page.goto(`${base}/dashboard/tunnels`)
    assert.equal(list?.status(), 200)
    assert.equal(await page.locator('#create-tunnel').count(), 1)
    // The create form's hint shows the URL a tunnel gets here, as the sign-up page does.
    assert.equal(
      await page.textContent('#tunnel-url-form'),
      `http://<subdomain>--first.localhost:${service.port}/mcp`,
    )
    assert.equal(await page.locator('header.top form[action="/signout"]').count(), 1)
    const missing = await page.goto(`${base}/dashboard/no-such-page`)
    assert.equal(missing?.status(), 404)
    assert.equal(await page.locator('header.top form[action="/signout"]').count(), 1)
    assert.equal(await page.locator('header.top a[href="/signin"]').count(), 0)
  })

  it('"Run it" wraps inside its box at phone and desktop widths, and copies', async () => {
    await page.goto(`${base}/dashboard`)
    await page.fill('#create-tunnel input[name=name]', LONG_NAME)
    await Promise.all([
      page.waitForURL(`${base}/dashboard/tunnels`),
      page.click('#create-tunnel button[type=submit]'),
    ])
    const command = (await page.textContent('#up-command')) ?? ''
    assert.match(
      command,
      /^BURROW_API_KEY=mtk_\S+ burrow --broker ws:\/\/localhost:\d+ up --upstream/,
    )
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      const box = await page.evaluate<Box>(`(() => {
        const el = document.getElementById('up-command')
        const card = el.closest('.card').getBoundingClientRect()
        const pre = el.getBoundingClientRect()
        const button = el.parentElement.querySelector('button').getBoundingClientRect()
        el.scrollIntoView({ block: 'center' })
        const after = el.getBoundingClientRect()
        return {
          scrollWidth: el.scrollWidth,
          clientWidth: el.clientWidth,
          preRight: pre.right,
          buttonRight: button.right,
          cardRight: card.right,
          top: after.top,
          bottom: after.bottom,
          pageWidth: document.documentElement.scrollWidth,
          viewport: window.innerWidth,
        }
      })()`)
      const at = `at ${width}px: ${JSON.stringify(box)}`
      assert.ok(box.scrollWidth <= box.clientWidth, `the command scrolls in its box ${at}`)
      assert.ok(box.preRight <= box.cardRight, `the command leaves its card ${at}`)
      assert.ok(box.buttonRight <= box.cardRight, `the copy button leaves its card ${at}`)
      assert.ok(box.pageWidth <= box.viewport, `the page scrolls sideways ${at}`)
      // In the screenshot, the strip right of the card, beside the command, is plain background:
      // no text ran out of the box.
      const shot = PNG.sync.read(await page.screenshot())
      assert.equal(shot.width, width)
      const colours = new Set<string>()
      for (let y = Math.ceil(box.top); y < Math.floor(box.bottom); y++) {
        for (let x = Math.ceil(box.cardRight) + 2; x < shot.width; x++) {
          const i = (y * shot.width + x) * 4
          colours.add(shot.data.subarray(i, i + 3).join(','))
        }
      }
      assert.ok(colours.size >= 1, `no strip beside the card ${at}`)
      assert.equal(
        colours.size,
        1,
        `something is drawn right of the card ${at}: ${[...colours].join(' ')}`,
      )
    }
    await page.click('button[data-copy="up-command"]')
    // A selector, not a string predicate: the page's CSP forbids what Playwright would eval.
    await page.locator('button[data-copy="up-command"]', { hasText: /^Copied$/ }).waitFor()
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), command.trim())
  })

  it("a tunnel's page shows this month's usage and recent calls", async () => {
    const key = /BURROW_API_KEY=(mtk_\S+)/.exec((await page.textContent('#up-command')) ?? '')?.[1]
    assert.ok(key)
    publicUrl = (await page.textContent('#public-url')) ?? ''
    detail = (await page.getAttribute('a:text("Tunnel details")', 'href')) ?? ''
    // The test calls with curl-like requests, without signing in: open the tunnel to anyone.
    await page.goto(`${base}${detail}/access`)
    await page.check('#access-form input[name=mode][value=public]')
    await Promise.all([page.waitForURL(/\/access/), page.click('#access-form button[type=submit]')])
    assert.equal(await page.locator('#public-warning').count(), 1)
    client = await startClient(service, key, ['--stdio', `node ${HELLO}`])
    const session = await openSession(publicUrl)
    for (let i = 0; i < 3; i++) {
      const call = await postMcp(publicUrl, toolCall(i, 'hello', { name: `call ${i}` }), session)
      assert.equal(call.status, 200, call.text)
    }
    await page.goto(`${base}${detail}`)
    assert.match((await page.textContent('#recent-calls')) ?? '', /Recent calls/)
    // Usage comes from a snapshot taken every second here, and history is written in batches:
    // poll (no fixed sleep) until both show the calls.
    const deadline = Date.now() + 30_000
    let usage = ''
    let calls = 0
    while (Date.now() < deadline) {
      await page.goto(`${base}${detail}`)
      usage = (await page.textContent('#usage-tool-calls')) ?? ''
      calls = await page.locator('#recent-calls tbody tr:has-text("tools/call")').count()
      if (usage.startsWith('3 of') && calls === 3) break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    assert.equal(usage, '3 of 100,000')
    assert.equal(calls, 3)
    assert.match((await page.textContent('#usage-bandwidth')) ?? '', /^\d+(\.\d)? (B|KB) of 5 GB$/)
    assert.match((await page.textContent('#recent-calls tbody')) ?? '', /hello/)
    await Promise.all([
      page.waitForURL(/\/traffic$/),
      page.click('#recent-calls a:text("All traffic")'),
    ])
    // A call's page dates it as the other pages do (it showed the raw ISO text), to the ms.
    await page.goto(`${base}${detail}`)
    await page.goto(`${base}${await page.getAttribute('#recent-calls tbody a', 'href')}`)
    const facts = (await page.textContent('#call-facts')) ?? ''
    assert.match(facts, /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d:\d\d\.\d{3} UTC · /, facts)
  })

  it('the Metrics tab: every label inside its chart, and the time axis names the day', async () => {
    // A tool name as long as real ones get; the server does not know it, which is an answer too.
    const session = await openSession(publicUrl)
    const call = await postMcp(publicUrl, toolCall(9, LONG_TOOL, {}), session)
    assert.equal(call.status, 200, call.text)
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      await page.goto(`${base}${detail}/metrics`)
      if (await page.locator(`#metrics tr[data-tool="${LONG_TOOL}"]`).count()) break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page.goto(`${base}${detail}/metrics`)
      // Each label's box against its chart's card (the words are HTML beside the bars).
      const outside = await page.evaluate<string[]>(`(() => {
        const labels = document.querySelectorAll('#calls-chart-box span, #latency-chart span')
        return [...labels].flatMap((t) => {
          const b = t.getBoundingClientRect()
          const card = t.closest('.card').getBoundingClientRect()
          const inside = b.left >= card.left && b.top >= card.top &&
            b.right <= card.right && b.bottom <= card.bottom
          return inside ? [] : [t.textContent + ' at ' + [b.x, b.y, b.width, b.height].map(Math.round)]
        })
      })()`)
      assert.deepEqual(outside, [], `text outside its chart's card at ${width} px`)
    }
    const latency = (await page.textContent('#latency-chart')) ?? ''
    assert.ok(latency.includes(LONG_TOOL), latency)
    // The table writes latencies as the chart does (26, 6.9), not as stored (26.47, 6.939).
    const row = `#metrics tr[data-tool="${LONG_TOOL}"]`
    const cells = await page.locator(`${row} td[data-p50], ${row} td[data-p99]`).allTextContents()
    assert.equal(cells.length, 2)
    for (const cell of cells) assert.match(cell, /^(\d\.\d|[1-9]\d{0,2}(,\d{3})*)$/, cell)
    assert.ok(latency.includes(`${cells[0]} / `), `${cells.join(' ')} not in the chart: ${latency}`)
    // The 24 hours run from yesterday to today: the first and last labels say which day.
    const axis = await page.locator('#calls-chart-box .chart-x span').allTextContents()
    const today = new Date().toISOString().slice(5, 10)
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(5, 10)
    const [from, to] = axis.slice(-2)
    assert.match(
      from ?? '',
      new RegExp(`^(${yesterday}|${today}) \\d\\d:\\d\\d$`),
      axis.join(' | '),
    )
    assert.match(to ?? '', new RegExp(`^${today} \\d\\d:\\d\\d$`), axis.join(' | '))
    assert.match((await page.textContent('#calls-legend')) ?? '', /UTC/)
  })

  it('the Policy tab dates its versions as the other pages do', async () => {
    await page.goto(`${base}${detail}/policy`)
    await page.fill('#policy', JSON.stringify({ tools: { deny: ['server_time'] } }))
    await Promise.all([
      page.waitForURL(/\/policy\?notice=policy$/),
      page.click('#policy-form button[type=submit]'),
    ])
    const when = /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC$/
    const changed = (await page.locator('#policy-versions tbody td').nth(1).textContent()) ?? ''
    assert.match(changed, when)
    const version = (await page.textContent('#policy-version')) ?? ''
    assert.match(version, /^Version 1, changed [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC by /)
  })
})
