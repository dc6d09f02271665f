/**
 * `GET /metrics` over real sockets: with a token, only `Authorization: Bearer <token>` reads
 * (from anywhere; wrong, truncated, padded, oversized and otherwise malformed credentials get the
 * same 404 as no page at all); without one, only a loopback peer (IPv4, IPv6, IPv4-mapped) that
 * sends no `X-Forwarded-For`, so never a stranger coming through the proxy or another address.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { after, before, describe, it } from 'node:test'
import { serveMetrics } from '../../src/observability/metrics-route.js'
import { ServiceMetrics } from '../../src/observability/service-metrics.js'

const TOKEN = 'scrape-7f3a9c2e41b8d605'

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
}

/** A server answering every request with `serveMetrics`, on `host` port 0. */
async function metricsServer(
  token: string | null,
  host: string,
): Promise<{ server: Server; port: number }> {
  const metrics = new ServiceMetrics({ defaults: false })
  metrics.edgeRequests.inc({ status: '200', policy_code: '' }, 3)
  const server = createServer((req, res) => void serveMetrics(req, res, metrics, token))
  server.listen(0, host)
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port }
}

function get(
  port: number,
  headers: OutgoingHttpHeaders = {},
  opts: { host?: string; localAddress?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: opts.host ?? '127.0.0.1',
        port,
        method: opts.method ?? 'GET',
        path: '/metrics',
        headers,
        agent: false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end()
  })
}

function assertMetrics(answer: Answer): void {
  assert.equal(answer.status, 200, answer.text)
  assert.match(String(answer.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  assert.equal(answer.headers['cache-control'], 'no-store')
  assert.match(answer.text, /^burrowd_edge_requests_total\{status="200",policy_code=""\} 3$/m)
}

function assertNotFound(answer: Answer, what: string): void {
  assert.equal(answer.status, 404, `${what}: ${answer.status}`)
  assert.equal(answer.text, 'not found\n', what)
  assert.doesNotMatch(answer.text, /burrowd_/)
}

/** An address of this machine that is not loopback, if it has one. */
function externalIPv4(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  }
  return null
}

describe('GET /metrics with a token', () => {
  let server: Server
  let port: number

  before(async () => ({ server, port } = await metricsServer(TOKEN, '127.0.0.1')))
  after(() => server.close())

  it('reads with the Bearer token, the scheme in any case, through a proxy too', async () => {
    assertMetrics(await get(port, { authorization: `Bearer ${TOKEN}` }))
    assertMetrics(await get(port, { authorization: `bearer ${TOKEN}` }))
    assertMetrics(await get(port, { authorization: `BEARER    ${TOKEN}` }))
    assertMetrics(
      await get(port, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' }),
    )
  })

  it('answers HEAD with the head only', async () => {
    const answer = await get(port, { authorization: `Bearer ${TOKEN}` }, { method: 'HEAD' })
    assert.equal(answer.status, 200)
    assert.equal(answer.text, '')
  })

  it('answers a stranger the same 404 whatever the method, and the scraper 405 (found by a review)', async () => {
    // A 405 with Allow told a stranger the page exists.
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      assertNotFound(await get(port, {}, { method }), method)
    }
    const wrong = await get(port, { authorization: `Bearer ${TOKEN}` }, { method: 'POST' })
    assert.equal(wrong.status, 405)
    assert.equal(wrong.headers.allow, 'GET, HEAD')
  })

  it('answers 404 to anything but the exact token, even from this machine', async () => {
    const last = TOKEN.at(-1) === 'a' ? 'b' : 'a'
    const cases: [string, OutgoingHttpHeaders][] = [
      ['no credentials', {}],
      [
        'the same length, one character off',
        { authorization: `Bearer ${TOKEN.slice(0, -1)}${last}` },
      ],
      ['a prefix of it', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
      ['it and more', { authorization: `Bearer ${TOKEN}0` }],
      ['it twice', { authorization: `Bearer ${TOKEN}${TOKEN}` }],
      ['it with a trailing word', { authorization: `Bearer ${TOKEN} extra` }],
      [
        'another scheme',
        { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      ],
      ['the token without a scheme', { authorization: TOKEN }],
      ['the scheme without a token', { authorization: 'Bearer ' }],
      ['an empty header', { authorization: '' }],
      ['it in another header', { 'x-metrics-token': TOKEN }],
      ['an uppercased token', { authorization: `Bearer ${TOKEN.toUpperCase()}` }],
      [
        'a non-ASCII token of the same length',
        { authorization: `Bearer ${'é'.repeat(TOKEN.length / 2)}` },
      ],
      ['an oversized one', { authorization: `Bearer ${'x'.repeat(12_000)}` }],
    ]
    for (const [what, headers] of cases) assertNotFound(await get(port, headers), what)
  })

  it('answers many concurrent scrapers, right and wrong, each as it should', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        get(port, { authorization: `Bearer ${i % 2 ? TOKEN : 'x'.repeat(TOKEN.length)}` }),
      ),
    )
    answers.forEach((a, i) => (i % 2 ? assertMetrics(a) : assertNotFound(a, `scraper ${i}`)))
  })
})

describe('GET /metrics without a token', () => {
  let server: Server
  let port: number
  let dualStack = true

  before(async () => {
    try {
      ;({ server, port } = await metricsServer(null, '::'))
    } catch {
      dualStack = false
      ;({ server, port } = await metricsServer(null, '0.0.0.0'))
    }
  })
  after(() => server.close())

  it('reads from loopback when nothing says a proxy forwarded it', async () => {
    assertMetrics(await get(port))
  })

  it('reads from IPv6 loopback too', async (t) => {
    if (!dualStack) return t.skip('no IPv6 here')
    assertMetrics(await get(port, {}, { host: '::1' }))
  })

  it('answers 404 to a loopback request that came through a proxy', async () => {
    for (const value of ['203.0.113.9', '127.0.0.1', '', '::1, 10.0.0.1']) {
      assertNotFound(await get(port, { 'x-forwarded-for': value }), `X-Forwarded-For "${value}"`)
    }
  })

  it('ignores a token it was not configured with', async () => {
    assertNotFound(
      await get(port, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' }),
      'a token through the proxy',
    )
  })

  it('answers 404 to a peer that is not loopback', async (t) => {
    const address = externalIPv4()
    if (address === null) return t.skip('this machine has no other address')
    assertNotFound(await get(port, {}, { host: address, localAddress: address }), address)
  })
})
