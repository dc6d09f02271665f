/**
 * Which Host values the inspector answers, on real sockets: the address it listens on, the host
 * it was asked to listen on, and the loopback names that reach that very socket; never another
 * loopback address, where another program (another project's inspector) may listen on the same
 * port. In a real browser (headless Chromium through playwright-core): a program that takes the
 * port of a tab's inspector and passes the tab's requests on unchanged to an inspector with the
 * same fixed token on the other loopback address must not be handed the token.
 */
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { chromium, type Browser } from 'playwright-core'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'
import { send } from './inspector-client.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync']
const TOKEN = 'one-fixed-token-for-two-projects-4040'

const options = {
  addrExplicit: true,
  token: TOKEN,
  admin: false,
  recorder: new TrafficRecorder(),
  replay: () => Promise.reject(new Error('no replay here')),
}

/** The status of a token-bearing `GET /api/traffic` sent to `address` with `host`. */
async function statusFor(inspector: Inspector, address: string, host: string): Promise<number> {
  const reply = await send(inspector.port, '/api/traffic', {
    address,
    headers: { host, authorization: `Bearer ${inspector.token}` },
  })
  return reply.status
}

/** Start an inspector on `host`, or null when this machine cannot listen there. */
async function inspectorOn(host: string, port = 0): Promise<Inspector | null> {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
  return startInspector({ ...options, addr }).catch(() => null)
}

describe('the Host values the inspector answers', { timeout: 30_000 }, () => {
  const cases: readonly {
    readonly bind: string
    readonly connect: string
    readonly yes: readonly string[]
    readonly no: readonly string[]
  }[] = [
    { bind: '127.0.0.1', connect: '127.0.0.1', yes: ['127.0.0.1', 'localhost'], no: ['[::1]'] },
    { bind: '::1', connect: '::1', yes: ['[::1]', 'localhost'], no: ['127.0.0.1'] },
    {
      bind: '127.0.0.2',
      connect: '127.0.0.2',
      yes: ['127.0.0.2'],
      no: ['127.0.0.1', '[::1]', 'localhost'],
    },
    {
      bind: '0.0.0.0',
      connect: '127.0.0.1',
      yes: ['127.0.0.1', 'localhost', '0.0.0.0'],
      no: ['[::1]', '127.0.0.2'],
    },
  ]
  for (const { bind, connect: address, yes, no } of cases) {
    it(`listening on ${bind}: ${yes.join(', ')}; not ${no.join(', ')}`, async (t) => {
      const inspector = await inspectorOn(bind)
      if (!inspector) return t.skip(`cannot listen on ${bind}`)
      try {
        for (const host of yes) {
          const status = await statusFor(inspector, address, `${host}:${inspector.port}`)
          assert.equal(status, 200, `Host ${host}`)
        }
        for (const host of no) {
          const status = await statusFor(inspector, address, `${host}:${inspector.port}`)
          assert.equal(status, 403, `Host ${host}`)
        }
      } finally {
        await inspector.close()
      }
    })
  }

  it('proves the token only for a Host naming its own socket', async (t) => {
    // Found by hostile review: an inspector on [::1]:P answered the proof for 127.0.0.1:P.
    const here = await inspectorOn('127.0.0.1')
    assert.ok(here)
    const there = await inspectorOn('::1', here.port)
    try {
      if (!there) return t.skip('cannot listen on [::1]')
      const nonce = 'ab'.repeat(16)
      const asked = await send(there.port, `/api/proof?nonce=${nonce}`, {
        address: '::1',
        headers: { host: `127.0.0.1:${here.port}` },
      })
      assert.equal(asked.status, 403)
    } finally {
      await there?.close()
      await here.close()
    }
  })
})

/** A program on `port` of 127.0.0.1 that passes each connection to `target`, seeing its bytes. */
function forwarder(port: number, target: string, seen: Buffer[]): Promise<Server> {
  const server = createServer((socket) => {
    const upstream = connect(port, target)
    socket.on('data', (chunk: Buffer) => seen.push(chunk))
    socket.pipe(upstream).pipe(socket)
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('a tab whose inspector stopped', { skip: !existsSync(CHROMIUM), timeout: 60_000 }, () => {
  let browser: Browser

  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  })
  after(async () => {
    await browser?.close()
  })

  it('never sends the token through a program passing it to an inspector on [::1]', async (t) => {
    // Found by hostile review: two projects share BURROW_INSPECT_TOKEN; one inspector listens on
    // 127.0.0.1:P, the other (`--inspect-addr [::1]:P`, or `localhost:P` resolved to ::1) on
    // [::1]:P. The first stops; another local user's program takes 127.0.0.1:P and passes the
    // open tab's connections to [::1]:P byte for byte. That inspector answered the tab's Host
    // (127.0.0.1:P) and proved the token for it, and the tab sent the token through.
    const gone = await inspectorOn('127.0.0.1')
    assert.ok(gone)
    const elsewhere = await inspectorOn('::1', gone.port)
    if (!elsewhere) {
      await gone.close()
      return t.skip('cannot listen on [::1]')
    }
    const seen: Buffer[] = []
    const context = await browser.newContext()
    let relay: Server | null = null
    try {
      const page = await context.newPage()
      await page.goto(gone.url)
      await page.locator('#live.on').waitFor()
      await gone.close()
      relay = await forwarder(gone.port, '::1', seen)
      const stolen = (): boolean => Buffer.concat(seen).includes(TOKEN)
      const refused = page.locator('#live', { hasText: 'does not match what answers on this port' })
      await until(async () => stolen() || (await refused.count()) > 0)
      assert.ok(seen.length > 0, 'the page asked for a proof')
      assert.equal(stolen(), false, 'the token went through the program on the port')
    } finally {
      await context.close()
      relay?.close()
      await elsewhere.close()
    }
  })
})
