/**
 * A tunnel's host reaches the tunnel however a client spells it: in upper case, with a port, or
 * fully qualified with its trailing dot (`<sub>--<slug>.<zone>.`), which names the same host in
 * DNS and which a front proxy passes on as the client sent it. Before, the trailing dot sent the
 * request to the service's app: an agent's POST to `/mcp` got the app's 404 without its id, and
 * the dashboard's sign-in page was served on the tunnel's name.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { rawRequest } from '../helpers/raw-http.js'
import { startService, type Service } from '../helpers/stack.js'

describe('tunnel host spellings', { timeout: 60_000 }, () => {
  let service: Service
  let host: string

  before(async () => {
    // Offline answers come after the wait for a reconnecting client, 5 s each by default.
    service = await startService({ BURROW_QUEUE_WAIT_MS: '100' })
    host = new URL((await service.tunnel()).publicUrl).hostname
  })
  after(() => service?.close())

  const call = (hostHeader: string, id: number) =>
    rawRequest(
      service.port,
      [
        'POST /mcp HTTP/1.1',
        `Host: ${hostHeader}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
      ],
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    )

  it('routes every spelling of the tunnel host to the tunnel (offline: its envelope with the id)', async () => {
    const spellings = [
      host,
      host.toUpperCase(),
      `${host}:443`,
      `${host}.`,
      `${host.toUpperCase()}.`,
      `${host}.:443`,
    ]
    for (const [i, spelling] of spellings.entries()) {
      const res = await call(spelling, 100 + i)
      assert.equal(res.status, 503, `${spelling}: ${res.body}`)
      assert.equal(res.header('x-burrow-error'), 'tunnel_offline', spelling)
      assert.equal((JSON.parse(res.body) as { id: unknown }).id, 100 + i, spelling)
    }
  })

  it('answers an unknown expectation on /mcp with the envelope, at a custom domain too', async () => {
    // Node answers an Expect other than 100-continue before any handler runs: burrowd knows the
    // host only by its label there, and a custom domain's name (one is looked up later) got the
    // API's 417 error object, which no MCP client reads.
    for (const name of [`${host}.`, 'mcp.example.test', `mcp.example.test.:${service.port}`]) {
      const res = await rawRequest(
        service.port,
        ['POST /mcp HTTP/1.1', `Host: ${name}`, 'Content-Type: application/json', 'Expect: 200-ok'],
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      )
      assert.equal(res.status, 400, `${name}: ${res.body}`)
      assert.equal(res.header('x-burrow-error'), 'invalid_request', name)
      assert.match(res.body, /"jsonrpc":"2\.0"/, name)
    }
  })

  it('never serves the dashboard on the tunnel host written with a trailing dot', async () => {
    for (const path of ['/', '/signin', '/dashboard']) {
      const res = await rawRequest(service.port, [
        `GET ${path} HTTP/1.1`,
        `Host: ${host}.`,
        'Accept: text/html',
      ])
      assert.equal(res.status, 404, `${path}: ${res.body.slice(0, 200)}`)
      assert.equal(res.header('x-burrow-error'), 'not_found', path)
      assert.equal(res.header('set-cookie'), undefined, path)
      assert.match(res.body, /only \/mcp is served on tunnel hosts/, path)
    }
  })
})
