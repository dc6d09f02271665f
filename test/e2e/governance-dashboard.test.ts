/**
 * The governance tabs driven in a real browser (headless Chromium through playwright-core)
 * against a real burrowd and `burrow up`: a policy edited in the Policy tab takes effect on the
 * next call; the Traffic tab lists calls, shows one in detail with its secrets masked, and its
 * live tail shows a call as it happens; the Metrics tab draws its charts (screenshots checked).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import type { Child } from '../helpers/child.js'
import {
  openSession,
  postMcp,
  startCountingServer,
  toolCall,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

describe('governance tabs in a browser', { skip: !hasChromium, timeout: 240_000 }, () => {
  let dashboard: DashboardInBrowser
  let service: Service
  let counting: CountingServer
  let user: WebUser
  let page: Page
  let client: Child
  let tunnel: { id: string; url: string }
  let base: string

  before(async () => {
    dashboard = await startDashboardInBrowser({
      env: { BURROW_LOG: 'info' },
      viewport: { width: 1100, height: 900 },
    })
    ;({ service, page, base } = dashboard)
    counting = await startCountingServer()
    user = await signUp(base, 'tabs')
    const made = await user.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'tabs', access: 'public' },
    )
    tunnel = { id: made.json.tunnel.id, url: made.json.tunnel.mcp_url }
    client = await startClient(service, made.json.key, ['--upstream', counting.url])
    await dashboard.useSession(user.cookie)
  })

  after(async () => {
    await client?.stop()
    await counting?.child.stop()
    await dashboard?.close()
  })

  it('applies a policy edited in the Policy tab from the next call', async () => {
    const session = await openSession(tunnel.url)
    assert.equal((await postMcp(tunnel.url, toolCall(1, 'drop_table'), session)).status, 200)
    await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/policy`)
    assert.equal(await page.textContent('nav.tabs a.active'), 'Policy')
    const policy = {
      tools: { allow: ['*'], deny: ['drop_*'] },
      redaction: { keys: ['password'], patterns: [], detect_secrets: true, forwarded: false },
    }
    await page.fill('#policy', JSON.stringify(policy, null, 2))
    await Promise.all([
      page.waitForURL(/notice=policy/),
      page.click('#policy-form button[type=submit]'),
    ])
    assert.match((await page.textContent('.notice')) ?? '', /Policy saved/)
    assert.match(
      (await page.textContent('#policy-versions')) ?? '',
      /dashboard \(tabs@example\.com\)/,
    )
    const refused = await postMcp(tunnel.url, toolCall(2, 'drop_table'), session)
    assert.equal(refused.status, 403)
    assert.equal(refused.headers.get('x-burrow-error'), 'tool_denied')
    // A bad document is refused in the page, naming the field, and nothing changes.
    await page.fill('#policy', '{"rate_limits": [{"tool": "x", "limit": -1, "per_seconds": 5}]}')
    await page.click('#policy-form button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match((await page.textContent('.notice.error')) ?? '', /rate_limits\[0\]\.limit/)
    assert.equal((await postMcp(tunnel.url, toolCall(3, 'drop_table'), session)).status, 403)
  })

  it('shows calls in the Traffic tab, live and in detail, with secrets masked', async () => {
    await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/traffic`)
    // A selector, not a string predicate: the page's CSP forbids what Playwright would eval.
    await page.locator('#live-status', { hasText: /^Live/ }).waitFor()
    const session = await openSession(tunnel.url)
    await postMcp(
      tunnel.url,
      toolCall('live', 'echo', { password: 'pw-1234-secret', message: 'seen live' }),
      session,
    )
    const row = await page.waitForSelector('#live-tail tbody tr [data-outcome="ok"]', {
      timeout: 15_000,
    })
    assert.ok(row)
    const liveText = (await page.textContent('#live-tail')) ?? ''
    assert.match(liveText, /tools\/call/)
    assert.match(liveText, /echo/)
    // The history lists it once written (in the background, about every second); the detail
    // shows the masked argument.
    const deadline = Date.now() + 20_000
    for (;;) {
      await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/traffic?tool=echo`)
      if ((await page.$('#calls tbody tr')) || Date.now() > deadline) break
      await new Promise((r) => setTimeout(r, 300))
    }
    await Promise.all([page.waitForURL(/\/traffic\/call_/), page.click('#calls tbody tr a')])
    const request = (await page.textContent('#request-body')) ?? ''
    assert.match(request, /\[REDACTED:password\]/)
    assert.doesNotMatch(request, /pw-1234-secret/)
    assert.match((await page.textContent('#response-body')) ?? '', /seen live/)
    // Filtering by a refused outcome shows only the refusals.
    await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/traffic?status=refused`)
    const badges = page.locator('#calls [data-outcome]')
    const outcomes: (string | null)[] = []
    for (let i = 0; i < (await badges.count()); i++) {
      outcomes.push(await badges.nth(i).getAttribute('data-outcome'))
    }
    assert.ok(outcomes.length >= 2)
    assert.ok(outcomes.every((o) => o === 'refused'))
  })

  it('draws the Metrics tab charts', async () => {
    // Metrics are written every few seconds: reload until the table shows the calls.
    const deadline = Date.now() + 20_000
    for (;;) {
      await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/metrics?window=1h`)
      const row = await page.$('#metrics tr[data-tool="drop_table"]')
      // The allowed call may be written before the two refusals: wait for those too.
      if (/tool_denied/.test((await row?.textContent()) ?? '') || Date.now() > deadline) break
      await new Promise((r) => setTimeout(r, 500))
    }
    assert.match(
      (await page.textContent('#metrics tr[data-tool="drop_table"]')) ?? '',
      /tool_denied/,
    )
    const bars = await page.$$('#calls-chart rect')
    assert.ok(bars.length >= 1, 'the calls chart has bars')
    const chart = await page.$('#calls-chart')
    const box = await chart!.boundingBox()
    assert.ok(box && box.width > 400 && box.height > 50, `chart box ${JSON.stringify(box)}`)
    // The chart as a reader sees it: the bars, and the axes' figures beside them (HTML text).
    const shot = await (await page.$('#calls-chart-box'))!.screenshot({ type: 'png' })
    assert.ok(shot.length > 2000, `screenshot of ${shot.length} bytes`)
    // The bars have heights, and the latency chart has bars too.
    const latency = await page.$$('#latency-chart rect')
    assert.ok(latency.length >= 1, 'the latency chart has bars')
    const rects = page.locator('#calls-chart rect')
    let tallest = 0
    for (let i = 0; i < (await rects.count()); i++) {
      tallest = Math.max(tallest, Number(await rects.nth(i).getAttribute('height')))
    }
    assert.ok(tallest > 10, `the tallest bar is ${tallest} high`)
    // A window named after what every object inherits shows the default window, and a notice
    // of such a name shows no notice.
    for (const asked of ['valueOf', '__proto__']) {
      const res = await page.goto(`${base}/dashboard/tunnels/${tunnel.id}/metrics?window=${asked}`)
      assert.equal(res?.status(), 200, asked)
      assert.ok(await page.$('#metrics'), asked)
    }
    const noticed = await page.goto(`${base}/dashboard?notice=toString`)
    assert.equal(noticed?.status(), 200)
    assert.equal(await page.$('.notice'), null, 'no empty notice box')
  })
})
