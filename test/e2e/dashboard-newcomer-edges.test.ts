/**
 * More rough edges a new user met in the dashboard, driven in Chromium against a real burrowd:
 * the pricing page writes public URLs as this service does (not `https://<name>--…<zone>`); a
 * tunnel's "This month" rows do not overlap the note under them (a `.meter` grid took the
 * progress bar's 0.6rem height), say "Data transfer" as the billing page does, and the note is a
 * sentence; the Domain tab on the Free plan offers no form to fill in
 * vain, and a plan refusal (a domain, a third tunnel) says "upgrade your plan" once, as its link;
 * a browser sent to a mistyped address outside /dashboard gets a page with the menu, not JSON;
 * refusals on the sign-up and Account pages are sentences ("The new that password is …" was not).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { hasChromium } from '../helpers/browser.js'
import {
  startDashboardInBrowser,
  type DashboardInBrowser,
} from '../helpers/dashboard-in-browser.js'
import type { Service } from '../helpers/stack.js'

/** Where one element is drawn, in the viewport. */
interface Rect {
  readonly top: number
  readonly bottom: number
}

describe('dashboard: a newcomer’s edges', { skip: !hasChromium, timeout: 120_000 }, () => {
  let dashboard: DashboardInBrowser
  let service: Service
  let browser: Browser
  let page: Page
  let base: string
  let detail = ''

  before(async () => {
    // No snapshot is taken while the test runs: the meters show none yet.
    dashboard = await startDashboardInBrowser({ env: { BURROW_METER_SNAPSHOT_SECS: '3600' } })
    ;({ service, browser, page, base } = dashboard)
  })

  after(async () => {
    await dashboard?.close()
  })

  it("the pricing page writes public URLs as this service does, with the viewer's account", async () => {
    await page.goto(`${base}/pricing`)
    const form = `http://<subdomain>--<account>.localhost:${service.port}/mcp`
    assert.equal(await page.locator('main p code').first().textContent(), form)

    // A common password: the refusal is a sentence, as the other sign-up errors are.
    await page.goto(`${base}/signup`)
    await page.fill('#email', 'newbie@example.com')
    await page.fill('#password', 'password123')
    await page.fill('#slug', 'newbie')
    await page.click('form[action="/signup"] button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match(
      (await page.textContent('.notice.error')) ?? '',
      /^That password is one of the most commonly used ones; .*\.$/,
    )
    await page.fill('#email', 'newbie@example.com')
    await page.fill('#password', 'correct horse battery')
    await page.fill('#slug', 'newbie')
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.click('form[action="/signup"] button[type=submit]'),
    ])
    await page.goto(`${base}/pricing`)
    assert.equal(
      await page.locator('main p code').first().textContent(),
      `http://<subdomain>--newbie.localhost:${service.port}/mcp`,
    )
  })

  it('"This month": rows clear of the note, "Data transfer", and a sentence', async () => {
    await page.goto(`${base}/dashboard`)
    await page.fill('#create-tunnel input[name=name]', 'files')
    await Promise.all([
      page.waitForURL(`${base}/dashboard/tunnels`),
      page.click('#create-tunnel button[type=submit]'),
    ])
    detail = (await page.getAttribute('a:text("Tunnel details")', 'href')) ?? ''
    await page.goto(`${base}${detail}`)
    const rect = (selector: string) =>
      page.evaluate<Rect>(`(() => {
        const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect()
        return { top: r.top, bottom: r.bottom }
      })()`)
    const calls = await rect('#usage-tool-calls')
    const bytes = await rect('#usage-bandwidth')
    const note = await rect('#usage p.muted')
    const at = JSON.stringify({ calls, bytes, note })
    assert.ok(calls.bottom <= bytes.top, `the two rows overlap: ${at}`)
    assert.ok(bytes.bottom <= note.top, `the note is drawn over the rows: ${at}`)
    const labels = await page.locator('#usage h2 + div > span:nth-child(odd)').allTextContents()
    assert.deepEqual(labels, ['Tool calls', 'Data transfer'])
    assert.match(
      (await page.textContent('#usage p.muted')) ?? '',
      /^Live counts; counters reset [A-Z]/,
    )
  })

  it('the Metrics tab of a tunnel with no calls says so, with no empty latency chart', async () => {
    await page.goto(`${base}${detail}/metrics`)
    assert.equal(await page.locator('#latency-chart').count(), 0)
    assert.equal(await page.textContent('#no-latency'), 'No answered calls in this window.')
    assert.equal(await page.locator('#no-metrics').count(), 1)
  })

  it('the Domain tab on Free: no form to fill in vain, one "upgrade your plan"', async () => {
    await page.goto(`${base}${detail}/domain`)
    assert.equal(await page.isDisabled('#domain-add button[type=submit]'), true)
    assert.equal(await page.isDisabled('#domain-name'), true)
    // A form posted anyway (an old page, a script) is refused with one link to the plans.
    await page.evaluate(`document.querySelectorAll('#domain-add [disabled]')
      .forEach((e) => e.removeAttribute('disabled'))`)
    await page.fill('#domain-name', 'mcp.example.com')
    await page.click('#domain-add button[type=submit]')
    await page.waitForSelector('.notice.error')
    const notice = (await page.textContent('.notice.error')) ?? ''
    assert.equal(notice.match(/upgrade your plan/gi)?.length, 1, notice)
    assert.match(notice, /^Custom domains need the Pro or Scale plan; the Free plan has none\./)
    assert.equal(
      await page.getAttribute('.notice.error a', 'href'),
      '/dashboard/billing',
      'the upgrade phrase links to billing',
    )
  })

  it('a tunnel past the plan: the refusal is a sentence with one "upgrade your plan"', async () => {
    for (const name of ['docs', 'third']) {
      await page.goto(`${base}/dashboard`)
      await page.fill('#create-tunnel input[name=name]', name)
      await page.click('#create-tunnel button[type=submit]')
      await page.waitForLoadState()
    }
    const notice = (await page.textContent('.notice.error')) ?? ''
    assert.equal(notice.match(/upgrade your plan/gi)?.length, 1, notice)
    assert.match(notice, /^The Free plan allows 2 tunnels and account "newbie" has 2; /)
    assert.match(notice, /to create more\.$/)
    assert.equal(await page.textContent('.notice.error a'), 'upgrade your plan')
  })

  it('the Account page words a refused new password as a sentence', async () => {
    const change = async (password: string) => {
      await page.goto(`${base}/dashboard/account`)
      await page.fill('input[name=current]', 'correct horse battery')
      await page.fill('input[name=password]', password)
      await page.click('form[action="/dashboard/account/password"] button[type=submit]')
      await page.waitForSelector('.notice.error')
      return (await page.textContent('.notice.error')) ?? ''
    }
    // It said "The new that password is one of the most commonly used ones".
    assert.match(await change('password123'), /^That password is one of the most commonly used/)
    assert.equal(
      await change('aaaaaaaaaa'),
      'The new password must not be one character repeated; choose a few unrelated words.',
    )
  })

  it('a mistyped address is a page with the menu, not a JSON refusal', async () => {
    const typo = await page.goto(`${base}/sigin`)
    assert.equal(typo?.status(), 404)
    assert.match(typo?.headers()['content-type'] ?? '', /^text\/html/)
    assert.equal(await page.textContent('.notice.error'), 'Nothing is served at /sigin.')
    assert.equal(await page.locator('header.top form[action="/signout"]').count(), 1)
    // Not signed in: the way on is the home page and sign-in, not the dashboard.
    const stranger = await browser.newContext()
    try {
      const other = await stranger.newPage()
      const res = await other.goto(`${base}/pricing/annual`)
      assert.equal(res?.status(), 404)
      assert.equal(await other.locator('main a[href="/signin"]').count(), 1)
      // Hostile: markup and a long path in the address are shown as text, never as markup.
      const evil = `/x<img src=x id=evil>${'a'.repeat(6000)}`
      const hostile = await other.goto(`${base}${evil}`)
      assert.equal(hostile?.status(), 404)
      assert.equal(await other.locator('#evil').count(), 0)
      // Scripts and the API keep their JSON answers.
      const api = await fetch(`${base}/api/nope`, { headers: { accept: 'text/html' } })
      assert.equal(api.status, 404)
      assert.match(api.headers.get('content-type') ?? '', /json/)
      const json = await fetch(`${base}/sigin`, { headers: { accept: 'application/json' } })
      assert.equal(json.status, 404)
      assert.equal(((await json.json()) as { error: { code: number } }).error.code, -32000)
    } finally {
      await stranger.close()
    }
  })

  it('hostile: a domain refused by the plan, posted again and again, stays one notice', async () => {
    // Repeated posts, concurrent: each answer is the same single refusal; nothing is added.
    await page.goto(`${base}${detail}/domain`)
    const answers = await page.evaluate<number[]>(`(async () => {
      const csrf = [...document.querySelectorAll('input[name=_csrf]')].pop().value
      const post = () => fetch(${JSON.stringify(`${detail}/domain`)}, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, domain: 'x'.repeat(5000) + '.example.com' }),
      }).then((r) => r.status)
      return Promise.all(Array.from({ length: 8 }, post))
    })()`)
    for (const status of answers) assert.ok(status === 402 || status === 400, String(answers))
    await page.goto(`${base}${detail}/domain`)
    assert.equal(await page.locator('#domain-records').count(), 0)
  })
})
