/**
 * The Domain tab of a tunnel in a real browser (headless Chromium through playwright-core)
 * against a real burrowd that checks DNS with a real server on loopback, and a real `burrow up`:
 * Free is told to upgrade and refused; after an upgrade a bad name is refused on the page, a good
 * one is added and shown pending with the records to create; once they are published "Check now"
 * verifies it, the custom URL appears on the tab and the overview (its snippet too) and reaches
 * the tunnel; "Remove" stops it.
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
import { buyPlan } from '../helpers/dev-checkout.js'
import { startDnsServer, type DnsServer } from '../helpers/dns-server.js'
import { postMcp, startCountingServer, type CountingServer } from '../helpers/quota-stack.js'
import { startClient, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const DOMAIN = 'mcp.example.org'

function initialize(id: string): unknown {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'browser-test', version: '1' },
    },
  }
}

describe('the Domain tab in a browser', { skip: !hasChromium, timeout: 240_000 }, () => {
  let dns: DnsServer
  let dashboard: DashboardInBrowser
  let service: Service
  let counting: CountingServer
  let user: WebUser
  let page: Page
  let client: Child
  let tunnelId: string
  let base: string

  before(async () => {
    dns = await startDnsServer()
    dashboard = await startDashboardInBrowser({
      env: { BURROW_LOG: 'info', BURROW_DNS_SERVERS: dns.address },
      viewport: { width: 1100, height: 900 },
    })
    ;({ service, page, base } = dashboard)
    counting = await startCountingServer()
    user = await signUp(base, 'webdom')
    const made = await user.api<{ tunnel: { id: string }; key: string }>('POST', '/api/tunnels', {
      name: 'docs',
      access: 'public',
    })
    tunnelId = made.json.tunnel.id
    client = await startClient(service, made.json.key, ['--upstream', counting.url])
    await dashboard.useSession(user.cookie)
    page.on('dialog', (dialog) => void dialog.accept())
  })

  after(async () => {
    await client?.stop()
    await counting?.child.stop()
    await dashboard?.close()
    await dns?.close()
  })

  async function text(selector: string): Promise<string> {
    return (await page.textContent(selector)) ?? ''
  }

  it('tells Free to upgrade and refuses the domain', async () => {
    await page.goto(`${base}/dashboard/tunnels/${tunnelId}/domain`)
    assert.equal(await text('nav.tabs a.active'), 'Domain')
    assert.match(await text('#domain-plan'), /Pro and Scale/)
    // The form is there to show what the tab does, but disabled: Free cannot add one.
    assert.equal(await page.isDisabled('#domain-add button[type=submit]'), true)
    await page.evaluate(`document.querySelectorAll('#domain-add [disabled]')
      .forEach((e) => e.removeAttribute('disabled'))`)
    await page.fill('#domain-name', DOMAIN)
    await page.click('#domain-add button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match(await text('.notice.error'), /^Custom domains need the Pro or Scale plan/)
    assert.equal(await page.getAttribute('.notice.error a', 'href'), '/dashboard/billing')
    assert.equal(await page.inputValue('#domain-name'), DOMAIN, 'the form keeps what was typed')
  })

  it('adds a domain on Pro, shows the records, verifies it and shows the custom URL', async () => {
    await buyPlan(base, (method, path, body) => user.api(method, path, body), 'pro')
    await page.goto(`${base}/dashboard/tunnels/${tunnelId}/domain`)
    assert.equal(await page.$('#domain-plan'), null)
    // A refused name is explained on the page.
    await page.fill('#domain-name', '*.example.org')
    await page.click('#domain-add button[type=submit]')
    await page.waitForSelector('.notice.error')
    assert.match(await text('.notice.error'), /wildcard/)

    await page.fill('#domain-name', DOMAIN)
    await Promise.all([
      page.waitForURL(/notice=domain_added/),
      page.click('#domain-add button[type=submit]'),
    ])
    assert.equal(await page.getAttribute('#domain-state', 'data-state'), 'pending')
    assert.equal(await page.$('#custom-url'), null)
    // Until it is verified the name reaches no tunnel.
    const early = await postMcp(`http://${DOMAIN}:${service.port}/mcp`, initialize('early'))
    assert.equal(early.status, 404)
    assert.equal(early.headers.get('x-burrow-error'), 'tunnel_not_found')
    const records = (await page.locator('#domain-records tbody tr').allInnerTexts()).map((row) =>
      row.split('\t').map((cell) => cell.trim()),
    )
    assert.equal(records.length, 2)
    const [txt, cname] = records as [string[], string[]]
    assert.deepEqual(txt.slice(0, 2), ['TXT', `_burrow-challenge.${DOMAIN}`])
    assert.deepEqual(cname, ['CNAME', DOMAIN, 'docs--webdom.localhost'])

    // Checked before the records exist: still pending, saying what is missing.
    await Promise.all([
      page.waitForURL(/notice=domain_pending/),
      page.click('#domain-verify button'),
    ])
    assert.match(await text('#domain-problem'), /no TXT record/)

    dns.records.set(`_burrow-challenge.${DOMAIN}`, [{ type: 'TXT', data: txt[2] ?? '' }])
    dns.records.set(DOMAIN, [{ type: 'CNAME', domain: cname[2] ?? '' }])
    await Promise.all([
      page.waitForURL(/notice=domain_verified/),
      page.click('#domain-verify button'),
    ])
    assert.equal(await page.getAttribute('#domain-state', 'data-state'), 'verified')
    const customUrl = `http://${DOMAIN}:${service.port}/mcp`
    assert.equal(await text('#custom-url'), customUrl)

    await page.goto(`${base}/dashboard`)
    assert.equal(await text(`tr[data-tunnel="${tunnelId}"] [data-custom-url]`), customUrl)
    await page.goto(`${base}/dashboard/tunnels/${tunnelId}`)
    assert.equal(await text('#custom-url'), customUrl)
    assert.match(await text('#snippet'), new RegExp(customUrl.replace(/[.]/g, '\\.')))
    // The URL on the page reaches the tunnel.
    const answer = await postMcp(customUrl, initialize('via-domain'))
    assert.equal(answer.status, 200)
    // So does the fully qualified name.
    const dotted = await postMcp(`http://${DOMAIN}.:${service.port}/mcp`, initialize('dotted'))
    assert.equal(dotted.status, 200)
  })

  it('refuses hostile form posts: no CSRF token, a second domain, an oversized name', async () => {
    const path = `/dashboard/tunnels/${tunnelId}/domain`
    const forged = await user.form(path, { domain: 'evil.example.org' }, 'not-the-token')
    assert.equal(forged.status, 403)
    const second = await user.form(path, { domain: 'two.example.org' })
    assert.equal(second.status, 409)
    assert.match(await second.text(), /already has the custom domain mcp\.example\.org/)
    const huge = await user.form(path, { domain: `${'x'.repeat(5000)}.example.org` })
    assert.equal(huge.status, 400)
    assert.match(await huge.text(), /domain name/)
    const verifyOther = await user.form(`/dashboard/tunnels/tun_doesnotexist/domain/verify`, {})
    assert.equal(verifyOther.status, 404)
  })

  it('removes the domain: the tab offers the form again and the domain stops routing', async () => {
    await page.goto(`${base}/dashboard/tunnels/${tunnelId}/domain`)
    await Promise.all([
      page.waitForURL(/notice=domain_removed/),
      page.click('#domain-remove button'),
    ])
    assert.ok(await page.$('#domain-add'))
    const answer = await postMcp(`http://${DOMAIN}:${service.port}/mcp`, initialize('gone'))
    assert.equal(answer.status, 404)
  })
})
