/**
 * The inspector's HTTP server on real sockets: no data without the token (a Bearer header, never a
 * cookie or the query), the static shell without it, Host and Origin checks
 * against DNS rebinding and cross-site use, security headers, the traffic API and its live feed,
 * and no Config routes without admin.
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import { createReplayer } from '../../src/inspector/replay-exchange.js'
import { initialize } from '../helpers/raw-mcp.js'
import { fakeMcp } from './fake-mcp-handler.js'
import { authed, rawRequest, send } from './inspector-client.js'
import { serveTapped, type ServedTap } from './serve-tapped.js'

describe('inspector server', { timeout: 30_000 }, () => {
  let tapped: ServedTap
  let inspector: Inspector

  before(async () => {
    const fake = fakeMcp()
    tapped = await serveTapped(fake)
    inspector = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: null,
      admin: false,
      recorder: tapped.recorder,
      replay: createReplayer({ recorder: tapped.recorder, handler: () => fake }),
    })
  })
  after(async () => {
    await inspector.close()
    await tapped.close()
  })

  it('prints a URL carrying a fresh 192-bit token in its fragment', () => {
    assert.match(inspector.token, /^[A-Za-z0-9_-]{32}$/)
    assert.equal(inspector.url, `http://127.0.0.1:${inspector.port}/#token=${inspector.token}`)
  })

  it('serves the static shell without the token, and no data', async () => {
    for (const path of ['/', '/index.html', '/style.css', '/js/main.js', '/js/dom.js']) {
      const reply = await send(inspector.port, path)
      assert.equal(reply.status, 200, path)
      assert.equal(reply.headers['set-cookie'], undefined, path)
      assert.ok(!reply.body.includes(inspector.token), path)
    }
    const head = await send(inspector.port, '/', { method: 'HEAD' })
    assert.equal(head.status, 200)
    const post = await send(inspector.port, '/', {
      method: 'POST',
      headers: { authorization: `Bearer ${inspector.token}`, 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(post.status, 405)
    // The shell still checks Host and Origin (DNS rebinding).
    const rebound = await send(inspector.port, '/', { headers: { host: 'evil.example' } })
    assert.equal(rebound.status, 403)
  })

  it('serves no data without the token, whatever the route', async () => {
    const paths = [
      '/js/config.js',
      '/api/traffic',
      '/api/traffic/stream',
      '/api/traffic/1',
      '/api/config',
      '/no/such/page',
    ]
    // A cookie is never read, even one holding the right token: browsers send a cookie for
    // 127.0.0.1 to every port of it, where another local user's page would receive it.
    const wrong: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { cookie: `burrow_inspector_${inspector.port}=${inspector.token}` },
      { cookie: `token=${inspector.token}` },
      { authorization: `Basic ${inspector.token}` },
    ]
    for (const path of paths) {
      for (const headers of wrong) {
        const reply = await send(inspector.port, path, { headers })
        assert.equal(reply.status, 401, `${path} ${JSON.stringify(headers)}`)
        assert.ok(!reply.body.includes('<script'), path)
      }
      // Nor is the query: a token in a URL ends up in logs and history.
      const query = await send(inspector.port, `${path}?token=${inspector.token}`)
      assert.equal(query.status, 401, path)
    }
    for (const path of ['/api/traffic/1/replay', '/api/traffic/clear', '/api/config/apply']) {
      const reply = await send(inspector.port, path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      assert.equal(reply.status, 401, path)
    }
    const page = await send(inspector.port, '/api/traffic', { headers: { accept: 'text/html' } })
    assert.match(page.headers['content-type'] ?? '', /^text\/html/)
    assert.match(page.body, /401 Unauthorized/)
    assert.match(page.body, /#token=/)
    const api = await send(inspector.port, '/api/traffic')
    assert.match((JSON.parse(api.body) as { error: string }).error, /needs its token/)
    assert.equal(api.headers['www-authenticate'], 'Bearer realm="burrow-inspector"')
  })

  it('proves it holds the token without anyone sending it (HMAC of a nonce)', async () => {
    const nonce = '0123456789abcdef'.repeat(2)
    const reply = await send(inspector.port, `/api/proof?nonce=${nonce}`)
    assert.equal(reply.status, 200)
    // Bound to the Host asked with, as the page checks it with its own location.host.
    const expected = createHmac('sha256', inspector.token)
      .update(`127.0.0.1:${inspector.port}\n${nonce}`)
      .digest('hex')
    assert.deepEqual(JSON.parse(reply.body), { proof: expected })
    const named = await send(inspector.port, `/api/proof?nonce=${nonce}`, {
      headers: { host: `LOCALHOST:${inspector.port}` },
    })
    const forName = createHmac('sha256', inspector.token)
      .update(`localhost:${inspector.port}\n${nonce}`)
      .digest('hex')
    assert.deepEqual(JSON.parse(named.body), { proof: forName })
    assert.ok(!reply.body.includes(inspector.token))
    for (const bad of ['', 'abc', 'Z'.repeat(32), '0'.repeat(129), `${nonce}&nonce=${nonce}x`]) {
      const refused = await send(inspector.port, `/api/proof?nonce=${bad}`)
      assert.equal(refused.status, 400, bad)
    }
    const rebound = await send(inspector.port, `/api/proof?nonce=${nonce}`, {
      headers: { host: 'evil.example' },
    })
    assert.equal(rebound.status, 403)
  })

  it('takes the token as a Bearer header, and never sets a cookie', async () => {
    const api = await authed(inspector, '/api/traffic')
    assert.equal(api.status, 200)
    assert.equal(api.headers['set-cookie'], undefined)
    const script = await authed(inspector, '/js/dom.js')
    assert.equal(script.status, 200)
    assert.match(script.headers['content-type'] ?? '', /^text\/javascript/)
    assert.match(script.body, /authorization/)
  })

  it('refuses a Host header that is not the inspector (DNS rebinding)', async () => {
    const port = inspector.port
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1`,
      `127.0.0.1:${port + 1}`,
      `localhost.evil.example:${port}`,
      // Another loopback address: another program may listen on this port there.
      `[::1]:${port}`,
    ]) {
      const reply = await authed(inspector, '/api/traffic', undefined, { host })
      assert.equal(reply.status, 403, `Host "${host}"`)
    }
    // HTTP/1.0 allows leaving Host out; that is refused too.
    const bare = await rawRequest(
      port,
      `GET /api/traffic HTTP/1.0\r\nAuthorization: Bearer ${inspector.token}\r\n\r\n`,
    )
    assert.match(bare, /^HTTP\/1\.1 403 /)
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`]) {
      const reply = await authed(inspector, '/api/traffic', undefined, { host })
      assert.equal(reply.status, 200, host)
    }
  })

  it('refuses a foreign Origin, and state changes from other sites', async () => {
    const own = `http://127.0.0.1:${inspector.port}`
    for (const origin of ['http://evil.example', 'null', `http://localhost:${inspector.port}`]) {
      const reply = await authed(inspector, '/api/traffic', undefined, { origin })
      assert.equal(reply.status, 403, origin)
    }
    assert.equal((await authed(inspector, '/api/traffic', undefined, { origin: own })).status, 200)
    const crossSite = await authed(
      inspector,
      '/api/traffic/clear',
      {},
      {
        'sec-fetch-site': 'same-site',
      },
    )
    assert.equal(crossSite.status, 403)
    const sameOrigin = await authed(
      inspector,
      '/api/traffic/clear',
      {},
      {
        origin: own,
        'sec-fetch-site': 'same-origin',
      },
    )
    assert.equal(sameOrigin.status, 200)
  })

  it('accepts POSTs only as JSON, which a cross-site form cannot send', async () => {
    const reply = await send(inspector.port, '/api/traffic/clear', {
      method: 'POST',
      headers: { authorization: `Bearer ${inspector.token}`, 'content-type': 'text/plain' },
      body: '{}',
    })
    assert.equal(reply.status, 415)
    assert.equal((await authed(inspector, '/api/traffic/clear')).status, 405)
  })

  it('sends security headers on every answer, refusals included', async () => {
    for (const reply of [
      await send(inspector.port, '/'),
      await authed(inspector, '/'),
      await authed(inspector, '/api/traffic'),
      await authed(inspector, '/nope'),
    ]) {
      const csp = String(reply.headers['content-security-policy'])
      assert.match(csp, /default-src 'self'/)
      assert.match(csp, /frame-ancestors 'none'/)
      assert.equal(reply.headers['x-content-type-options'], 'nosniff')
      assert.equal(reply.headers['referrer-policy'], 'no-referrer')
    }
  })

  it('has no Config tab or config routes without admin (404, not 403)', async () => {
    const page = await authed(inspector, '/')
    assert.ok(!page.body.includes('data-tab="config"'))
    assert.ok(!page.body.includes('config.js'))
    assert.equal((await authed(inspector, '/js/config.js')).status, 404)
    assert.equal((await authed(inspector, '/api/config')).status, 404)
    for (const action of ['validate', 'apply', 'save']) {
      const reply = await authed(inspector, `/api/config/${action}`, { upstreams: [] })
      assert.equal(reply.status, 404, action)
    }
  })

  it('lists, shows and replays traffic, and streams it live', async () => {
    const stream = await fetch(
      new URL(`/api/traffic/stream`, `http://127.0.0.1:${inspector.port}`),
      {
        headers: { authorization: `Bearer ${inspector.token}` },
      },
    )
    assert.equal(stream.status, 200)
    const reader: ReadableStreamDefaultReader<Uint8Array> = stream.body!.getReader()
    let text = ''
    const waitFor = async (piece: string): Promise<void> => {
      while (!text.includes(piece)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`stream ended before "${piece}"`)
        text += new TextDecoder().decode(value)
      }
    }
    await waitFor('event: snapshot')

    const session = await initialize(tapped.url)
    const call = { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'echo' } }
    await (await session.post(call)).text()
    await waitFor('"rpcId":41')
    assert.match(text, /event: exchanges\ndata: \[/)
    await reader.cancel()

    const list = JSON.parse((await authed(inspector, '/api/traffic')).body) as {
      exchanges: { id: number; rpcId: unknown }[]
    }
    const id = list.exchanges.find((e) => e.rpcId === 41)!.id
    const detail = JSON.parse((await authed(inspector, `/api/traffic/${id}`)).body) as {
      toolName: string
      responseBody: { text: string }
    }
    assert.equal(detail.toolName, 'echo')
    assert.match(detail.responseBody.text, /call\\":1/)
    const replayed = await authed(inspector, `/api/traffic/${id}/replay`, {})
    assert.equal(replayed.status, 200)
    const result = JSON.parse(replayed.body) as { status: number; body: { text: string } }
    assert.equal(result.status, 200)
    assert.match(result.body.text, /call\\":2/)
    assert.equal((await authed(inspector, '/api/traffic/999999')).status, 404)
    assert.equal((await authed(inspector, '/api/traffic/999999/replay', {})).status, 404)
  })
})
