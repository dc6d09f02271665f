/**
 * The dashboard answers only on the service's own hosts: the service host (the zone by default,
 * `BURROW_SERVICE_HOST` when set) and hosts that name no one's domain (an address, `localhost`),
 * as tests and local development reach it. Any other host that is neither a tunnel's nor a custom
 * domain's gets `404 tunnel_not_found`. Before, every such name served the sign-in page and the
 * API (found by a review): `evil.<zone>`, a name under a tunnel's host, the zone itself beside a
 * service host of its own, or any name pointed at the service. Real burrowd processes.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js'
import { startService, type Service } from '../helpers/stack.js'

/** `GET path` with `Host: host`, as a browser asks for a page. */
function page(service: Service, host: string, path: string): Promise<RawAnswer> {
  return rawRequest(service.port, [
    `GET ${path} HTTP/1.1`,
    `Host: ${host}`,
    'Accept: text/html,application/xhtml+xml',
  ])
}

/** The answer is the refusal for a host nothing is served at, and no page of the service. */
function assertRefused(answer: RawAnswer, what: string): void {
  assert.equal(answer.status, 404, `${what}: ${answer.body.slice(0, 300)}`)
  assert.equal(answer.header('x-burrow-error'), 'tunnel_not_found', what)
  assert.match(answer.header('content-type') ?? '', /^application\/json/, what)
  assert.doesNotMatch(answer.body, /<form|password|sign in/i, what)
  assert.equal(answer.header('set-cookie'), undefined, what)
}

describe('hosts the dashboard answers on', { timeout: 120_000 }, () => {
  let service: Service
  let hosted: Service

  before(async () => {
    service = await startService()
    hosted = await startService({
      BURROW_ZONE: 'tunnels.test',
      BURROW_SERVICE_HOST: 'dashboard.burrow.test',
    })
  })
  after(async () => {
    await service?.close()
    await hosted?.close()
  })

  it('serves it on the service host, addresses and localhost', async () => {
    const port = service.port
    for (const host of [
      `localhost:${port}`,
      'LOCALHOST',
      'localhost.',
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
    ]) {
      const answer = await page(service, host, '/signin')
      assert.equal(answer.status, 200, host)
      assert.match(answer.body, /<form[^>]+action="\/signin"/, host)
    }
    for (const host of ['dashboard.burrow.test', '127.0.0.1', `[::1]:${hosted.port}`]) {
      const answer = await page(hosted, host, '/signin')
      assert.equal(answer.status, 200, host)
      assert.match(answer.body, /<form[^>]+action="\/signin"/, host)
    }
  })

  it('refuses every other host that is not a tunnel’s, whatever the path', async () => {
    const port = service.port
    const foreign = [
      `evil.localhost:${port}`,
      `www.localhost`,
      `a.docs--acme.localhost:${port}`,
      `signin.acme.localhost`,
      `burrow.example.com:${port}`,
      `localhost.example.com`,
      `127.0.0.1.example.com`,
    ]
    const paths = [
      '/',
      '/signin',
      '/signup',
      '/dashboard',
      '/pricing',
      '/oauth/authorize?client_id=x',
      '/.well-known/oauth-authorization-server',
      '/api/tunnels',
      '/api/plans',
      '/nothing-here',
    ]
    for (const host of foreign) {
      for (const path of paths) assertRefused(await page(service, host, path), `${host}${path}`)
    }
    // A form posted there is refused too, without reading it as a sign-in.
    const posted = await rawRequest(
      port,
      [
        'POST /signin HTTP/1.1',
        `Host: evil.localhost:${port}`,
        'Content-Type: application/x-www-form-urlencoded',
      ],
      'email=e2e%40example.com&password=whatever1',
    )
    assertRefused(posted, 'POST /signin')
    // The zone itself and its other names, when the service has a host of its own.
    for (const host of ['tunnels.test', `www.tunnels.test:${hosted.port}`, 'burrow.test']) {
      for (const path of ['/', '/signin', '/dashboard', '/api/tunnels']) {
        assertRefused(await page(hosted, host, path), `${host}${path}`)
      }
    }
  })

  it('still answers probes and what `burrow up` asks at its broker’s origin on any host', async () => {
    const host = `burrow-node-a:${service.port}`
    const health = await page(service, host, '/healthz')
    assert.equal(health.status, 200)
    assert.match(health.body, /\bok\b/)
    const ready = await page(service, host, '/readyz')
    assert.equal(ready.status, 200)
    const release = await page(service, host, '/api/client/latest')
    assert.equal(release.status, 200)
    assert.match(release.body, /"version"/)
  })
})
