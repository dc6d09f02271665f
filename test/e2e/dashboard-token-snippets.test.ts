/**
 * A tunnel in `token` access mode: the client snippets the dashboard and the API show carry the
 * header its agents must send (`Authorization: Bearer atk_…`, a placeholder) as `burrow up`
 * prints it, with a line saying where to make the token; the Access tab shows the real secret in
 * a snippet only on the page that just made it; `oauth` and `public` tunnels' snippets are the
 * URL alone. Driven in Chromium against a real burrowd, with a real `burrow up` to compare.
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
import { ROOT, startClient, type Service } from '../helpers/stack.js'
import { createTunnelInBrowser, signUpInBrowser } from '../helpers/dashboard-flows.js'

const HELLO = join(ROOT, 'examples/hello-server.mjs')
/** A name with markup and quotes: the snippet shows it as text. */
const NAME = `files "<b>x</b>`
const PLACEHOLDER = { Authorization: 'Bearer atk_…' }

interface Entry {
  url: string
  headers?: Record<string, string>
}
interface Snippet {
  mcpServers: Record<string, Entry>
}

/** The snippet's one entry. */
function entryOf(snippet: Snippet): Entry {
  const entries = Object.values(snippet.mcpServers)
  assert.equal(entries.length, 1, JSON.stringify(snippet))
  return entries[0]!
}

describe(
  'dashboard and API: a token tunnel’s snippets',
  { skip: !hasChromium, timeout: 120_000 },
  () => {
    let dashboard: DashboardInBrowser
    let service: Service
    let page: Page
    let base: string
    let client: Child | undefined
    let detail = ''
    let key = ''
    let tunnelId = ''

    before(async () => {
      dashboard = await startDashboardInBrowser()
      ;({ service, page, base } = dashboard)
      await signUpInBrowser(page, base, 'tokens')
    })

    after(async () => {
      await client?.stop()
      await dashboard?.close()
    })

    const snippet = async (selector = '#snippet') =>
      JSON.parse((await page.textContent(selector)) ?? '') as Snippet
    const api = <T>(path: string) =>
      page.evaluate<T>(`fetch(${JSON.stringify(path)}).then((r) => r.json())`)
    const setMode = async (mode: string) => {
      await page.goto(`${base}${detail}/access`)
      await page.check(`#access-form input[name=mode][value=${mode}]`)
      await Promise.all([
        page.waitForURL(/\/access\?notice=saved$/),
        page.click('#access-form button[type=submit]'),
      ])
    }

    it('a new tunnel is oauth: its snippet is the URL alone, and the page says agents sign in', async () => {
      ;({ key, detail } = await createTunnelInBrowser(page, base, NAME))
      tunnelId = detail.split('/').pop() ?? ''
      const entry = entryOf(await snippet())
      assert.equal(entry.headers, undefined)
      assert.equal(Object.keys((await snippet()).mcpServers)[0], 'files---b-x--b--via-tunnel')
      assert.match(
        (await page.textContent('#access-hint')) ?? '',
        /sign in with your Burrow account/,
      )
      assert.equal(await page.locator('#snippet-access').count(), 0)
    })

    it('token mode: the overview snippet carries the header, as `burrow up` prints it', async () => {
      await setMode('token')
      await page.goto(`${base}${detail}`)
      const shown = await snippet()
      assert.deepEqual(entryOf(shown).headers, PLACEHOLDER)
      const note = (await page.textContent('#snippet-access')) ?? ''
      assert.match(note, /Authorization: Bearer atk_…/)
      assert.equal(await page.getAttribute('#snippet-access a', 'href'), `${detail}/access`)
      // The same snippet `burrow up` prints for this tunnel.
      client = await startClient(service, key, ['--stdio', `node ${HELLO}`, '--name', NAME])
      await client.waitFor(/VS Code \(settings\.json\)/)
      const start = client.stdout.indexOf('{\n  "mcpServers"')
      const end = client.stdout.indexOf('\n}\n', start)
      assert.ok(start >= 0 && end > start, client.stdout)
      assert.deepEqual(JSON.parse(client.stdout.slice(start, end + 2)), shown)
    })

    it('the API’s tunnel JSON carries the same snippet', async () => {
      const one = await api<{ snippet: Snippet }>(`/api/tunnels/${tunnelId}`)
      assert.deepEqual(entryOf(one.snippet).headers, PLACEHOLDER)
      const list = await api<{ tunnels: { id: string; snippet: Snippet }[] }>('/api/tunnels')
      const listed = list.tunnels.find((t) => t.id === tunnelId)
      assert.deepEqual(entryOf(listed!.snippet).headers, PLACEHOLDER)
      // A tunnel made through the API in token mode answers with the header too.
      await page.goto(`${base}/dashboard`)
      const made = await page.evaluate<{ tunnel: { snippet: Snippet }; access: { mode: string } }>(`
      fetch('/api/tunnels', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-csrf-token': document.querySelector('input[name=_csrf]').value,
        },
        body: JSON.stringify({ name: 'made', access: 'token' }),
      }).then((r) => r.json())`)
      assert.equal(made.access.mode, 'token', JSON.stringify(made))
      assert.deepEqual(entryOf(made.tunnel.snippet).headers, PLACEHOLDER)
    })

    it('a new agent token: its page alone shows the secret in a snippet', async () => {
      await page.goto(`${base}${detail}/access`)
      await page.fill('#agent-token-name', 'laptop')
      await page.click('form[action$="/agent-tokens"] button[type=submit]')
      await page.waitForSelector('#agent-token-secret')
      const secret = (await page.textContent('#agent-token-secret')) ?? ''
      assert.match(secret, /^atk_/)
      const withSecret = entryOf(await snippet('#agent-token-snippet'))
      assert.deepEqual(withSecret.headers, { Authorization: `Bearer ${secret}` })
      // Shown once: the Access tab again, the overview and the API never carry it.
      for (const path of [`${detail}/access`, detail]) {
        await page.goto(`${base}${path}`)
        assert.ok(!((await page.content()) ?? '').includes(secret), path)
      }
      assert.equal(await page.locator('#agent-token-snippet').count(), 0)
      assert.ok(!JSON.stringify(await api(`/api/tunnels/${tunnelId}`)).includes(secret))
    })

    it('a rotated key’s page shows the header too', async () => {
      await page.goto(`${base}${detail}`)
      page.once('dialog', (d) => void d.accept())
      await page.click(`form[action="${detail}/rotate-key"] button[type=submit]`)
      await page.waitForSelector('#tunnel-key')
      assert.deepEqual(entryOf(await snippet()).headers, PLACEHOLDER)
      assert.match((await page.textContent('#snippet-access')) ?? '', /Authorization: Bearer atk_…/)
    })

    it('public and oauth again: the URL alone, on the page and in the API', async () => {
      for (const mode of ['public', 'oauth']) {
        await setMode(mode)
        await page.goto(`${base}${detail}`)
        assert.equal(entryOf(await snippet()).headers, undefined, mode)
        assert.equal(await page.locator('#snippet-access').count(), 0, mode)
        const one = await api<{ snippet: Snippet }>(`/api/tunnels/${tunnelId}`)
        assert.equal(entryOf(one.snippet).headers, undefined, mode)
      }
    })

    it('hostile: a token made in oauth mode is not put in a snippet; many at once stay apart', async () => {
      await page.goto(`${base}${detail}/access`)
      await page.fill('#agent-token-name', 'not yet')
      await page.click('form[action$="/agent-tokens"] button[type=submit]')
      await page.waitForSelector('#agent-token-secret')
      assert.equal(await page.locator('#agent-token-snippet').count(), 0)
      // Token mode, and several tokens made at once: each page's snippet has its own secret.
      await setMode('token')
      const pages = await page.evaluate<string[]>(`(async () => {
      const csrf = document.querySelector('input[name=_csrf]').value
      const make = (i) => fetch(${JSON.stringify(`${detail}/agent-tokens`)}, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, name: 'agent ' + i }),
      }).then((r) => r.text())
      return Promise.all([0, 1, 2, 3].map(make))
    })()`)
      const secrets = new Set<string>()
      for (const html of pages) {
        const secret = /id="agent-token-secret">(atk_[^<]+)</.exec(html)?.[1]
        assert.ok(secret, html.slice(0, 400))
        const inSnippet = /id="agent-token-snippet">([^<]+)</.exec(html)?.[1] ?? ''
        assert.ok(inSnippet.includes(`Bearer ${secret}`), inSnippet)
        secrets.add(secret)
      }
      assert.equal(secrets.size, 4)
    })
  },
)
