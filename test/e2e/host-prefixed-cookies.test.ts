/**
 * Over https the dashboard's cookies are named `__Host-burrow_…` (Secure, `Path=/`, no Domain),
 * so another host under the zone cannot plant or shadow them. Every tunnel host is a sibling of
 * the service host (`<sub>--<slug>.<zone>`), and a network attacker can answer any such name over
 * plain http. Before, the session cookie was `burrow_session`: a `burrow_session` cookie set by
 * `http://<anything>.<zone>` for `Domain=<zone>; Path=/dashboard` went to the dashboard ahead of
 * the owner's own (the longer path first), and burrowd, which reads the first, showed the
 * attacker's account to the owner, who then made tunnels and keys in it. Real burrowd behind a
 * real Caddy (internal CA), and Debian's Chromium: what the browser keeps and sends is its own.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Cookie } from 'playwright-core'
import { CHROMIUM } from '../helpers/browser.js'
import { CADDY, startCaddy, type Caddy } from '../helpers/caddy.js'
import { createTunnelInBrowser, TEST_PASSWORD } from '../helpers/dashboard-flows.js'
import { freePort } from '../helpers/free-port.js'
import { startService, type Service } from '../helpers/stack.js'
import { chromium } from 'playwright-core'

const ZONE = 'tunnels.test'

describe(
  'dashboard cookies over https',
  { skip: !existsSync(CADDY) || !existsSync(CHROMIUM), timeout: 180_000 },
  () => {
    let service: Service
    let caddy: Caddy
    let browser: Browser
    let attacker: Server
    let base: string
    let planted: string[] = []

    before(async () => {
      const httpsPort = await freePort()
      service = await startService({
        BURROW_ZONE: ZONE,
        BURROW_PUBLIC_SCHEME: 'https',
        BURROW_PUBLIC_PORT: String(httpsPort),
        BURROW_LOG: 'info',
      })
      caddy = await startCaddy(service.port, ZONE, httpsPort)
      base = `https://${ZONE}:${httpsPort}`
      // A sibling of the service host answered over plain http, as by a network attacker (or a
      // host of the zone burrowd does not serve): its answer plants the cookies it is told to.
      attacker = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': planted })
        res.end('<!doctype html><title>hello</title><p>hello</p>')
      })
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          // Every name of the zone is this machine, as its wildcard DNS record makes it.
          '--host-resolver-rules=MAP * 127.0.0.1',
        ],
      })
    })

    after(async () => {
      await browser?.close()
      attacker?.close()
      await caddy?.close()
      await service?.close()
    })

    /** A browser of its own, trusting Caddy's internal CA (its certificates are not public). */
    const newBrowserContext = () => browser.newContext({ ignoreHTTPSErrors: true })

    /** Sign up `name` in `context` over https; its signed-in session cookie. */
    async function signUp(context: BrowserContext, name: string): Promise<Cookie> {
      const page = await context.newPage()
      await page.goto(`${base}/signup`)
      await page.fill('#email', `${name}@example.com`)
      await page.fill('#password', TEST_PASSWORD)
      await page.fill('#slug', name)
      await Promise.all([
        page.waitForURL(`${base}/dashboard`),
        page.click('form[action="/signup"] button[type=submit]'),
      ])
      await page.close()
      const session = (await context.cookies(base)).find((c) => c.name.endsWith('burrow_session'))
      assert.ok(session, 'signed in')
      return session
    }

    it('names the session, form and device cookies __Host-, Secure, Path=/ and host-only', async () => {
      const context = await newBrowserContext()
      try {
        const form = await context.newPage()
        await form.goto(`${base}/signin`)
        const formCookies = await context.cookies(base)
        assert.deepEqual(
          formCookies.map((c) => [c.name, c.secure, c.path, c.domain]),
          [['__Host-burrow_form', true, '/', ZONE]],
          'the sign-in form’s token cookie',
        )
        await form.close()
        const session = await signUp(context, 'alice')
        assert.equal(session.name, '__Host-burrow_session')
        const cookies = await context.cookies(base)
        assert.ok(cookies.length > 0)
        for (const cookie of cookies) {
          assert.match(cookie.name, /^__Host-burrow_/, cookie.name)
          assert.equal(cookie.secure, true, cookie.name)
          assert.equal(cookie.path, '/', cookie.name)
          assert.equal(cookie.httpOnly, true, cookie.name)
          // Host-only: Playwright writes a Domain cookie with its leading dot.
          assert.equal(cookie.domain, ZONE, cookie.name)
        }
        // A sign-in leaves the device cookie under the prefix too.
        const page = await context.newPage()
        await page.goto(`${base}/dashboard`)
        await Promise.all([
          page.waitForURL(`${base}/signin`),
          page.click('button:text("Sign out")'),
        ])
        await page.fill('#email', 'alice@example.com')
        await page.fill('#password', TEST_PASSWORD)
        await Promise.all([
          page.waitForURL(`${base}/dashboard`),
          page.click('form[action="/signin"] button[type=submit]'),
        ])
        const names = (await context.cookies(base)).map((c) => c.name).sort()
        assert.deepEqual(names, ['__Host-burrow_device', '__Host-burrow_session'])
      } finally {
        await context.close()
      }
    })

    it('keeps a sibling host of the zone from planting its own session in the owner’s browser', async () => {
      const mallory = await newBrowserContext()
      const owner = await newBrowserContext()
      try {
        const theirs = await signUp(mallory, 'mallory')
        await signUp(owner, 'owner')
        const page = await owner.newPage()
        await page.goto(`${base}/dashboard`)
        await Promise.all([
          page.waitForURL(`${base}/signin`),
          page.click('button:text("Sign out")'),
        ])
        // Signed out, the owner's browser opens a page of a sibling host, answered over plain
        // http, which tries every way to put the attacker's session before the owner's next one.
        // (Chromium keeps a plain cookie from http off a name a Secure one holds, so the attack
        // needs the browser signed out: after a sign-out, an expiry, or in a new browser.)
        const value = theirs.value
        planted = [
          `burrow_session=${value}; Domain=${ZONE}; Path=/dashboard`,
          `__Host-burrow_session=${value}; Domain=${ZONE}; Path=/dashboard`,
          `__Host-burrow_session=${value}; Path=/`,
          `__Host-burrow_session=${value}; Secure; Path=/`,
          `${theirs.name}=${value}; Domain=${ZONE}; Path=/dashboard`,
        ]
        const port = (attacker.address() as AddressInfo).port
        await page.goto(`http://attacker.${ZONE}:${port}/`)
        // The browser took the plain-named cookie for the whole zone, and no __Host- one.
        const kept = await owner.cookies(`${base}/dashboard`)
        assert.ok(
          kept.some((c) => c.name === 'burrow_session' && c.domain === `.${ZONE}`),
          `Chromium keeps a plain cookie a sibling sets for the zone: ${JSON.stringify(kept)}`,
        )
        assert.ok(!kept.some((c) => c.name.startsWith('__Host-') && c.value === value))

        // The owner signs in again: every dashboard page is the owner's.
        await page.goto(`${base}/signin`)
        await page.fill('#email', 'owner@example.com')
        await page.fill('#password', TEST_PASSWORD)
        await Promise.all([
          page.waitForURL(`${base}/dashboard`),
          page.click('form[action="/signin"] button[type=submit]'),
        ])
        for (const path of ['/dashboard', '/dashboard/tunnels', '/dashboard/account']) {
          await page.goto(`${base}${path}`)
          const header = (await page.textContent('header.top')) ?? ''
          assert.match(header, /owner@example\.com/, path)
          assert.doesNotMatch(header, /mallory/, path)
        }
        // And what the owner makes lands in the owner's account, not the attacker's.
        await page.goto(`${base}/dashboard/tunnels`)
        const made = await createTunnelInBrowser(page, base, 'docs')
        assert.match(made.publicUrl, /^https:\/\/docs--owner\.tunnels\.test:\d+\/mcp$/)
        const theirPage = await mallory.newPage()
        await theirPage.goto(`${base}/api/tunnels`)
        assert.deepEqual(JSON.parse((await theirPage.textContent('body')) ?? ''), { tunnels: [] })
      } finally {
        planted = []
        await mallory.close()
        await owner.close()
      }
    })
  },
)
