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
    service = await startService()
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
