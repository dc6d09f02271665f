// The CLI's life through real processes: burrowd restarting under it, a refused key, drain on
// SIGTERM, a signal during backoff, and a second client taking the tunnel over.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { join } from 'node:path'
import { connectAgent, firstText } from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  BURROW,
  EVERYTHING,
  ROOT,
  startClient,
  startService,
  type Service,
} from '../helpers/stack.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const count = (text: string, needle: string) => text.split(needle).length - 1

/** Tunnel connections burrowd refused for an unknown key so far (its Prometheus counter). */
async function unknownKeyChecks(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const line = /^burrowd_broker_key_checks_total\{outcome="unknown"\} (\d+)$/m.exec(text)
  return Number(line?.[1] ?? 0)
}

describe('burrow client lifecycle', () => {
  let service: Service
  let everything: Child
  let everythingUrl: string
  let bulk: Child
  let bulkUrl: string

  before(async () => {
    const port = await freePort()
    everything = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
    })
    await everything.waitFor(/listening|port/i)
    everythingUrl = `http://127.0.0.1:${port}/mcp`
    bulk = startChild(process.execPath, [join(ROOT, 'test/fixtures/bulk-server.mjs')])
    bulkUrl = `http://127.0.0.1:${(await bulk.waitFor(/listening on (\d+)/))[1]}/mcp`
    service = await startService({}, { plan: 'pro' })
  })

  after(async () => {
    await everything?.stop()
    await bulk?.stop()
    await service?.close()
  })

  it('reconnects by itself when burrowd restarts; the agent session survives; no second snippet', async () => {
    const tunnel = await service.tunnel('restart')
    // A drain that waited for the agent's GET stream would hold the old connection for an hour.
    const cli = await startClient(service, tunnel.key, ['--upstream', everythingUrl], {
      BURROW_DRAIN_GRACE_SECS: '3600',
    })
    try {
      const { client } = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'one' } })),
        'Echo: one',
      )
      await service.proc.stop('SIGTERM')
      // The client closed the drained connection (the agent's GET stream with it) at once: burrowd
      // did not wait out its grace for that stream.
      assert.doesNotMatch(service.proc.stderr, /drain ended with/)
      await cli.waitFor(/reconnecting in/)
      await service.restart()
      await cli.waitFor(/reconnected; the session continues/, 40_000)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'two' } })),
        'Echo: two',
      )
      assert.equal(count(cli.stdout, 'Tunnel online'), 1, 'the snippet is printed once')
      await client.close()
    } finally {
      await cli.stop()
    }
  })

  it('an invalid key: "authentication failed" with the hint, a non-zero exit, no retry', async () => {
    const before = await unknownKeyChecks(service.port)
    const cli = startChild(
      process.execPath,
      [BURROW, '--broker', service.broker, 'up', '--upstream', everythingUrl],
      {
        env: { ...process.env, BURROW_API_KEY: 'mtk_not-a-real-key' },
      },
    )
    const code = await cli.exited
    assert.equal(code, 3)
    assert.match(cli.stderr, /authentication failed/)
    assert.match(cli.stderr, /--api-key \/ BURROW_API_KEY/)
    await sleep(300)
    assert.equal(
      (await unknownKeyChecks(service.port)) - before,
      1,
      'exactly one connection attempt',
    )
  })

  it('SIGTERM during an in-flight call: the call completes and the client exits 0', async () => {
    const tunnel = await service.tunnel('drain')
    const cli = await startClient(service, tunnel.key, ['--upstream', bulkUrl])
    const call = publicFetch(tunnel.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'slow', params: { ms: 1500 } }),
    })
    await sleep(300)
    cli.proc.kill('SIGTERM')
    const res = await call
    assert.equal(res.status, 200)
    assert.deepEqual(((await res.json()) as { id: number }).id, 7)
    assert.equal(await cli.exited, 0)
    assert.match(cli.stdout, /goodbye/i)
    // Once the client is gone the tunnel is offline.
    const offline = await publicFetch(tunnel.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":8,"method":"ping"}',
    })
    assert.equal(offline.status, 503)
    assert.equal(offline.headers.get('x-burrow-error'), 'tunnel_offline')
    assert.equal(((await offline.json()) as { id: number }).id, 8)
  })

  it('a signal during reconnect backoff exits at once', async () => {
    const port = await freePort()
    const tunnel = await service.tunnel('backoff')
    const cli = startChild(
      process.execPath,
      [BURROW, '--broker', `ws://127.0.0.1:${port}`, 'up', '--upstream', bulkUrl],
      {
        env: { ...process.env, BURROW_API_KEY: tunnel.key },
      },
    )
    await cli.waitFor(/reconnecting in/)
    const started = Date.now()
    cli.proc.kill('SIGINT')
    assert.equal(await cli.exited, 0)
    assert.ok(Date.now() - started < 3000, 'exited promptly')
  })

  it('a second client with the same key takes over; the first exits with status 4', async () => {
    const tunnel = await service.tunnel('takeover')
    // With nothing in flight the first exits at once, not after its drain grace.
    const first = await startClient(service, tunnel.key, ['--upstream', bulkUrl], {
      BURROW_DRAIN_GRACE_SECS: '3600',
    })
    const second = await startClient(service, tunnel.key, ['--upstream', everythingUrl])
    try {
      assert.equal(await first.exited, 4)
      assert.match(first.stderr, /took over/)
      const { client } = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'new owner' } })),
        'Echo: new owner',
      )
      await client.close()
    } finally {
      await first.stop()
      await second.stop()
    }
  })
})
