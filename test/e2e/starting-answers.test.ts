/**
 * What a starting burrowd answers on its port before it serves. The port is bound before the
 * services are wired, and with several nodes wiring waits for the cluster events' subscription
 * (up to 5 s when Redis does not answer): requests in that window got no answer at all and waited
 * until their clients gave up. Now each gets 503 with Retry-After: the refusal envelope on
 * `/mcp`, the API's error on `/api/`, text elsewhere, and a tunnel client's upgrade the envelope.
 * A real burrowd whose Redis accepts connections and never answers holds the window open.
 */
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { rawExchange as raw } from '../helpers/raw-http.js'
import { BURROWD } from '../helpers/stack.js'

/** Resolves once something listens on `port` (burrowd bound it). */
async function bound(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('a starting burrowd answers that it is starting', { timeout: 60_000 }, () => {
  let silent: Server
  const held: Socket[] = []
  let burrowd: Child
  let port: number

  before(async () => {
    // A Redis that accepts and never answers: the cluster events' wait runs its whole bound.
    silent = createServer((socket) => held.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const redisPort = (silent.address() as AddressInfo).port
    port = await freePort()
    burrowd = startChild(process.execPath, [BURROWD, 'serve'], {
      env: {
        ...process.env,
        BURROW_DATA_DIR: mkdtempSync(join(tmpdir(), 'burrow-starting-')),
        BURROW_LISTEN: `127.0.0.1:${port}`,
        BURROW_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        BURROW_LOG: 'debug',
      },
    })
    await bound(port)
  })

  after(async () => {
    await burrowd?.stop()
    for (const socket of held) socket.destroy()
    await new Promise<void>((resolve) => silent.close(() => resolve()))
  })

  it('answers every kind of request with 503 and Retry-After, the envelope on /mcp', async () => {
    // Concurrent and repeated: every one is answered.
    const tunnelUrl = `http://app--acme.localhost:${port}/mcp`
    const calls = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        publicFetch(tunnelUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
        }),
      ),
    )
    assert.ok(!burrowd.stderr.includes('burrowd listening'), 'the window had closed')
    for (const res of calls) {
      assert.equal(res.status, 503)
      assert.equal(res.headers.get('retry-after'), '1')
      const body = (await res.json()) as {
        jsonrpc: string
        id: unknown
        error: { data: { policy_code: string; reason: string } }
      }
      assert.equal(body.jsonrpc, '2.0')
      // The refused request's id, as every other refusal carries (found by a hostile review).
      assert.equal(body.id, calls.indexOf(res))
      assert.equal(body.error.data.policy_code, 'tunnel_offline')
      assert.match(body.error.data.reason, /starting/)
    }
    const api = await fetch(`http://127.0.0.1:${port}/api/account`)
    assert.equal(api.status, 503)
    assert.equal(api.headers.get('retry-after'), '1')
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'starting')
    const page = await fetch(`http://127.0.0.1:${port}/dashboard`)
    assert.equal(page.status, 503)
    assert.match(await page.text(), /starting/)
  })

  it('answers and ends a POST whose body is large or comes after its head', async () => {
    // Found by a hostile review: the envelope waited for a body nobody read, and stayed open
    // until the agent gave up.
    const head = (length: number) =>
      `POST /mcp HTTP/1.1\r\nHost: app--acme.localhost:${port}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
    const large = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: { p: 'a'.repeat(1 << 20) },
    })
    const late = JSON.stringify({ jsonrpc: '2.0', id: 'late', method: 'tools/list' })
    const [big, after] = await Promise.all([
      raw(port, head(Buffer.byteLength(large)) + large),
      raw(port, head(Buffer.byteLength(late)), { text: late, afterMs: 200 }),
    ])
    assert.ok(!burrowd.stderr.includes('burrowd listening'), 'the window had closed')
    for (const answer of [big, after]) {
      assert.match(answer, /^HTTP\/1\.1 503 /)
      assert.match(answer, /"policy_code":"tunnel_offline"/)
    }
    // Over 64 KiB the body is not read for ids; a small one is.
    assert.match(big, /"id":null/)
    assert.match(after, /"id":"late"/)
  })

  it('answers a request it cannot parse, or an unknown expectation, with the envelope', async () => {
    const garbage = await raw(port, 'NOT HTTP AT ALL\r\n\r\n')
    assert.match(garbage, /^HTTP\/1\.1 400 /)
    assert.match(garbage, /"policy_code":"invalid_request"/)
    const expect = await raw(
      port,
      `POST /mcp HTTP/1.1\r\nHost: app--acme.localhost:${port}\r\nExpect: something-else\r\n` +
        'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n',
    )
    assert.ok(!burrowd.stderr.includes('burrowd listening'), 'the window had closed')
    assert.match(expect, /^HTTP\/1\.1 503 /)
    assert.match(expect, /"policy_code":"tunnel_offline"/)
  })

  it("refuses a tunnel client's upgrade with the envelope", async () => {
    const answer = await raw(
      port,
      'GET /tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    )
    assert.match(answer, /^HTTP\/1\.1 503 /)
    assert.match(answer, /retry-after: 1/i)
    assert.match(answer, /"policy_code":"tunnel_offline"/)
  })
})
