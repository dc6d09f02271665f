/**
 * The inspector in a real browser (headless Chromium through playwright-core): the token gate
 * (the token in the URL's fragment and the tab's session storage, never in a cookie another port
 * of 127.0.0.1 would be sent),
 * live traffic from the real MCP front over a stdio child, the detail pane, replay beside the
 * original, escaping of hostile data, and the Config tab (absent without admin; edit, save to
 * disk and apply with it). Leaves a screenshot at /tmp/inspector.png.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { chromium, type Browser, type Page } from 'playwright-core'
import { McpFront } from '../../src/front/mcp-front.js'
import { StdioBackend } from '../../src/front/stdio-backend.js'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import { createReplayer } from '../../src/inspector/replay-exchange.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'
import { tapHandler } from '../../src/inspector/traffic-tap.js'
import { writeUpstreamsFile } from '../../src/inspector/upstreams-toml.js'
import { silentLogger } from '../../src/log/logger.js'
import { serveOverHttp } from '../../src/relay/node-http-adapter.js'
import { StdioSupervisor } from '../../src/stdio/stdio-supervisor.js'
import type { UpstreamSpec } from '../../src/upstreams/upstream-spec.js'
import { loadUpstreamsFile } from '../../src/upstreams/upstreams-file.js'
import { fixturePath } from '../helpers/fixtures.js'
import { initialize, type RawSession } from '../helpers/raw-mcp.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const HOSTILE = '<img src=x onerror="document.title=\'pwned\'">'

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const slowCall = (id: number, ms: number, steps = 0): unknown => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow', arguments: { ms, steps }, _meta: { progressToken: `p${id}` } },
})

describe('inspector in a browser', { skip: !existsSync(CHROMIUM), timeout: 90_000 }, () => {
  let browser: Browser
  let front: McpFront
  let recorder: TrafficRecorder
  let mcpServer: Server
  let mcpUrl: URL
  let session: RawSession
  let inspector: Inspector
  let dir: string

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-inspector-'))
    const supervisor = new StdioSupervisor({
      command: process.execPath,
      args: [fixturePath('slow-stdio-server.mjs')],
      logger: silentLogger,
      closeGraceMs: 500,
    })
    front = new McpFront({ backend: new StdioBackend({ supervisor, logger: silentLogger }) })
    recorder = new TrafficRecorder()
    mcpServer = serveOverHttp(tapHandler(front, recorder))
    await new Promise<void>((resolve) => mcpServer.listen(0, '127.0.0.1', resolve))
    mcpUrl = new URL(`http://127.0.0.1:${(mcpServer.address() as AddressInfo).port}/mcp`)
    inspector = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: null,
      admin: false,
      recorder,
      replay: createReplayer({ recorder, handler: () => front }),
    })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })

  after(async () => {
    await browser?.close()
    await inspector?.close()
    await front?.close()
    mcpServer?.closeAllConnections()
    await new Promise<void>((resolve) => (mcpServer ? mcpServer.close(() => resolve()) : resolve()))
    await rm(dir, { recursive: true, force: true })
  })

  async function open(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 } })
    return context.newPage()
  }

  it('shows no data without the token, and says where to find it', async () => {
    const page = await open()
    const res = await page.goto(`http://127.0.0.1:${inspector.port}/`)
    assert.equal(res?.status(), 200)
    await page.locator('#live', { hasText: 'open the URL that burrow up printed' }).waitFor()
    assert.equal(await page.locator('#rows tr').count(), 0)
    await page.goto('about:blank')
    await page.goto(`http://127.0.0.1:${inspector.port}/#token=wrong`)
    await page.locator('#live', { hasText: 'token rejected' }).waitFor()
    assert.equal(await page.locator('#rows tr').count(), 0)
    // Pasting the right URL into the same tab changes only the fragment: the page starts again.
    await page.goto(inspector.url)
    await page.locator('#live.on').waitFor()
    assert.equal(page.url(), `http://127.0.0.1:${inspector.port}/`)
    const api = await page.goto(`http://127.0.0.1:${inspector.port}/api/traffic`)
    assert.equal(api?.status(), 401)
    assert.match(await page.locator('body').innerText(), /401 Unauthorized/)
    await page.context().close()
  })

  it("keeps the token from other ports' pages: no cookie, session storage of its origin", async () => {
    // Another local user's page on another port of 127.0.0.1, opened in the same browser after
    // the inspector: it records what the browser sends it, and tries the inspector's API.
    const seen: IncomingHttpHeaders[] = []
    const evil = createServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end('<!doctype html><title>other</title>')
    })
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
    const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`
    const page = await open()
    try {
      await page.goto(inspector.url)
      await page.locator('#live.on').waitFor()
      assert.deepEqual(await page.context().cookies(), [])
      await page.goto(`${evilOrigin}/page`)
      await page.reload()
      const api = `http://127.0.0.1:${inspector.port}/api/traffic`
      const stolen = await page.evaluate<unknown[]>(`(async () => {
        const found = [sessionStorage.length, document.cookie]
        try {
          found.push((await fetch('${api}', { credentials: 'include' })).status)
        } catch {
          found.push('blocked')
        }
        return found
      })()`)
      assert.deepEqual(stolen, [0, '', 'blocked'])
      assert.ok(seen.length >= 2)
      for (const headers of seen) {
        assert.ok(!JSON.stringify(headers).includes(inspector.token), JSON.stringify(headers))
      }
      // Back on the inspector, the tab's session storage still holds the token: a reload works.
      await page.goto(`http://127.0.0.1:${inspector.port}/`)
      await page.locator('#live.on').waitFor()
    } finally {
      await page.context().close()
      evil.closeAllConnections()
      await new Promise<void>((resolve) => evil.close(() => resolve()))
    }
  })

  it('never sends the token to a program that took the port after the inspector', async () => {
    const gone = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: 'fixed-token-for-a-bookmark',
      admin: false,
      recorder,
      replay: createReplayer({ recorder, handler: () => front }),
    })
    const page = await open()
    const seen: IncomingHttpHeaders[] = []
    const squatter = createServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ proof: 'f'.repeat(64), exchanges: [] }))
    })
    try {
      await page.goto(gone.url)
      await page.locator('#live.on').waitFor()
      // burrow up stops; another local user's program takes the port at once.
      await gone.close()
      await new Promise<void>((resolve) => squatter.listen(gone.port, '127.0.0.1', resolve))
      await page.locator('#live', { hasText: 'does not match what answers on this port' }).waitFor()
      assert.ok(seen.length > 0, 'the page tried to reconnect')
      for (const headers of seen) {
        assert.ok(!JSON.stringify(headers).includes(gone.token), JSON.stringify(headers))
      }
    } finally {
      await page.context().close()
      squatter.closeAllConnections()
      await new Promise<void>((resolve) => squatter.close(() => resolve()))
    }
  })

  it('never sends the token to a program that relays the proof of an inspector elsewhere', async () => {
    // Found by hostile review: one fixed token, two inspectors, a relay on the first one's port.
    const options = {
      addrExplicit: true,
      token: 'one-fixed-token-for-two-projects',
      admin: false,
      recorder,
      replay: createReplayer({ recorder, handler: () => front }),
    }
    const gone = await startInspector({ ...options, addr: '127.0.0.1:0' })
    const elsewhere = await startInspector({ ...options, addr: '127.0.0.1:0' })
    const page = await open()
    const seen: IncomingHttpHeaders[] = []
    const relay = createServer((req, res) => {
      seen.push(req.headers)
      const target = `http://127.0.0.1:${elsewhere.port}${req.url ?? '/'}`
      fetch(target, { headers: { authorization: req.headers.authorization ?? '' } }).then(
        async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' })
          res.end(await answer.text())
        },
        () => res.destroy(),
      )
    })
    try {
      await page.goto(gone.url)
      await page.locator('#live.on').waitFor()
      await gone.close()
      await new Promise<void>((resolve) => relay.listen(gone.port, '127.0.0.1', resolve))
      await page.locator('#live', { hasText: 'does not match what answers on this port' }).waitFor()
      assert.ok(seen.length > 0, 'the page asked for a proof')
      for (const headers of seen) {
        assert.ok(!JSON.stringify(headers).includes(gone.token), JSON.stringify(headers))
      }
    } finally {
      await page.context().close()
      relay.closeAllConnections()
      await new Promise<void>((resolve) => relay.close(() => resolve()))
      await elsewhere.close()
    }
  })

  it('shows traffic live, details it, and replays beside the original', async () => {
    const page = await open()
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    await page.goto(inspector.url)
    // The token leaves the address bar; the tab's session storage keeps it.
    await page.locator('#live.on').waitFor()
    assert.equal(page.url(), `http://127.0.0.1:${inspector.port}/`)
    assert.equal(await page.locator('[data-tab="config"]').count(), 0)

    session = await initialize(mcpUrl)
    await page.locator('#rows td.method', { hasText: /^initialize$/ }).waitFor()

    // A slow call appears while it runs, then completes in place.
    let finished = false
    const pending = session.post(slowCall(11, 2_500, 2)).then(async (res) => {
      const text = await res.text()
      finished = true
      return text
    })
    const row = page.locator('#rows tr', { hasText: 'slow' })
    await row.waitFor({ timeout: 2_000 })
    assert.equal(finished, false, 'the row must show up before the call ends')
    assert.equal(await row.locator('td.method').innerText(), 'tools/call')
    await pending
    // The row completes in place: the latency cell stops showing "…".
    await until(async () => !(await row.locator('td.latency').innerText()).includes('…'))
    assert.match(await row.locator('td.latency').innerText(), /^2\.\d\d s$/)
    assert.equal(await row.locator('td.status').innerText(), '200')

    // Hostile values are shown as text, never as markup.
    const hostile = await session.post({
      jsonrpc: '2.0',
      id: 12,
      method: 'tools/call',
      params: { name: HOSTILE, arguments: {} },
    })
    await hostile.text()
    const hostileRow = page.locator('#rows tr', { hasText: 'onerror' })
    await hostileRow.waitFor()
    assert.equal(await hostileRow.locator('td.tool').innerText(), HOSTILE)
    await hostileRow.click()
    await page.locator('#detail h2', { hasText: 'onerror' }).waitFor()
    assert.equal(await page.locator('#detail img, #rows img').count(), 0)
    assert.notEqual(await page.title(), 'pwned')

    // Details: request and the streamed progress messages.
    await row.click()
    await page.locator('#detail h2', { hasText: 'tools/call' }).waitFor()
    const original = page.locator('#original-response')
    await original.getByText('notifications/progress').first().waitFor()
    assert.match(await page.locator('#detail').innerText(), /slept\\":2500/)
    assert.match(await page.locator('#detail').innerText(), new RegExp(session.sessionId))

    // Replay: the same call again, in the same session, shown beside the original.
    await page.locator('#replay').click()
    const replay = page.locator('#replay-response')
    await replay.waitFor({ timeout: 10_000 })
    await replay.getByText('HTTP 200').waitFor()
    const replayText = await replay.innerText()
    assert.match(replayText, /burrow-replay-1/)
    assert.match(replayText, /slept\\":2500/)
    const a = (await original.boundingBox())!
    const b = (await replay.boundingBox())!
    assert.ok(b.x > a.x + a.width - 1 && Math.abs(a.y - b.y) < 5, 'side by side')
    assert.equal(recorder.list().filter((s) => s.toolName === 'slow').length, 1)

    await page.screenshot({ path: '/tmp/inspector.png' })
    assert.deepEqual(errors, [])
    await page.context().close()
  })

  it('runs the Config tab with admin: edit, validate, save to disk, apply', async () => {
    const file = join(dir, 'upstreams.toml')
    await writeFile(file, '[upstreams.docs]\nhttp = "http://127.0.0.1:3000/mcp"\n')
    let specs: UpstreamSpec[] = loadUpstreamsFile(file)
    const applied: (readonly UpstreamSpec[])[] = []
    const admin = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: 'fixed-admin-token',
      admin: true,
      recorder,
      replay: createReplayer({ recorder, handler: () => front }),
      layout: {
        get: () => specs,
        apply: async (next) => {
          applied.push(next)
          specs = [...next]
        },
        save: async (next) => {
          await writeUpstreamsFile(file, next)
          return file
        },
        file,
      },
    })
    const page = await open()
    try {
      const errors: string[] = []
      page.on('pageerror', (err) => errors.push(err.message))
      await page.goto(admin.url)
      await page.locator('[data-tab="config"]').click()
      const rows = page.locator('#config-rows tr')
      await rows.first().waitFor()
      assert.equal(await rows.count(), 1)
      assert.equal(await rows.first().locator('.value').inputValue(), 'http://127.0.0.1:3000/mcp')

      // An invalid layout is explained, not saved.
      await page.locator('#config-add').click()
      await rows.nth(1).locator('.name').fill('Bad Name')
      await rows.nth(1).locator('.value').fill('npx files-server')
      await rows.nth(1).locator('.kind').selectOption('stdio')
      await page.locator('#config-validate').click()
      // The one upstream of a one-entry file has no name (single mode); a second one needs names.
      await page.locator('#config-output .error', { hasText: 'upstream 1 needs a name' }).waitFor()
      assert.equal(await rows.first().locator('.name').inputValue(), '')
      await rows.first().locator('.name').fill('docs')
      await page.locator('#config-validate').click()
      await page.locator('#config-output .error', { hasText: '"Bad Name" is invalid' }).waitFor()

      await rows.nth(1).locator('.name').fill('files')
      await rows.first().locator('.value').fill('http://127.0.0.1:3100/mcp')
      await page.locator('#config-validate').click()
      await page.locator('#config-output .ok', { hasText: 'Valid' }).waitFor()

      await page.locator('#config-save').click()
      await page.locator('#config-output .ok', { hasText: 'Saved to' }).waitFor()
      const expected: UpstreamSpec[] = [
        { kind: 'http', name: 'docs', url: 'http://127.0.0.1:3100/mcp' },
        { kind: 'stdio', name: 'files', command: 'npx files-server' },
      ]
      assert.deepEqual(loadUpstreamsFile(file), expected)
      assert.match(await readFile(file, 'utf8'), /\[upstreams\.files\]\nstdio = "npx files-server"/)
      assert.equal(applied.length, 0)

      await page.locator('#config-apply').click()
      await page.locator('#config-output .ok', { hasText: 'Applied' }).waitFor()
      assert.deepEqual(applied, [expected])

      // Removing a row and applying again.
      await rows.nth(1).locator('.remove').click()
      await page.locator('#config-apply').click()
      await page.locator('#config-output .ok', { hasText: 'Applied' }).waitFor()
      assert.deepEqual(applied[1], [{ kind: 'http', name: null, url: 'http://127.0.0.1:3100/mcp' }])
      await page.screenshot({ path: '/tmp/inspector-config.png' })
      assert.deepEqual(errors, [])
    } finally {
      await page.context().close()
      await admin.close()
    }
  })
})
