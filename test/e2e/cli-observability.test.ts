// The inspector and the metrics listener as `burrow up` runs them, through real processes: calls
// made through the tunnel show up in the inspector (token required) and move the /metrics
// counters of the aggregator; a taken metrics port only warns.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { join } from 'node:path'
import { connectAgent, firstText } from '../helpers/agent-scenario.js'
import type { Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const TOKEN = 'observability-token-0123'
const everything = `node "${join(ROOT, 'test/fixtures/everything-with-pid.mjs')}"`

describe('inspector and metrics through burrow up', () => {
  let service: Service
  let cli: Child
  let url: string
  let inspectPort: number
  let metricsPort: number

  before(async () => {
    service = await startService()
    const tunnel = await service.tunnel('observed')
    url = tunnel.url
    inspectPort = await freePort()
    metricsPort = await freePort()
    cli = await startClient(
      service,
      tunnel.key,
      [
        '--stdio',
        `one=${everything}`,
        '--stdio',
        `two=${everything}`,
        '--inspect',
        '--metrics-addr',
        `127.0.0.1:${metricsPort}`,
      ],
      { BURROW_INSPECT_ADDR: `127.0.0.1:${inspectPort}`, BURROW_INSPECT_TOKEN: TOKEN },
    )
  })

  after(async () => {
    await cli?.stop()
    await service?.close()
  })

  it('prints the inspector and metrics addresses', () => {
    assert.match(
      cli.stdout,
      new RegExp(`Inspector: +http://127\\.0\\.0\\.1:${inspectPort}/#token=${TOKEN}`),
    )
    assert.match(cli.stdout, new RegExp(`Metrics: +http://127\\.0\\.0\\.1:${metricsPort}/metrics`))
  })

  it('records tunnelled calls in the inspector, and serves nothing without the token', async () => {
    const { client } = await connectAgent(url)
    assert.equal(
      firstText(await client.callTool({ name: 'one__echo', arguments: { message: 'seen' } })),
      'Echo: seen',
    )
    await client.close()
    const api = `http://127.0.0.1:${inspectPort}/api/traffic`
    assert.equal((await fetch(api)).status, 401)
    const res = await fetch(api, { headers: { authorization: `Bearer ${TOKEN}` } })
    assert.equal(res.status, 200)
    const { exchanges } = (await res.json()) as {
      exchanges: { rpcMethod: string | null; toolName: string | null }[]
    }
    assert.ok(
      exchanges.some((e) => e.rpcMethod === 'tools/call' && e.toolName === 'one__echo'),
      `recorded: ${JSON.stringify(exchanges.map((e) => [e.rpcMethod, e.toolName]))}`,
    )
  })

  it('moves the aggregator counters on /metrics; /healthz says ok', async () => {
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    const count = (text: string, re: RegExp) => Number(re.exec(text)?.[1] ?? 0)
    const before = await scrape()
    const { client } = await connectAgent(url)
    await client.callTool({ name: 'two__get-sum', arguments: { a: 1, b: 2 } })
    await client.callTool({ name: 'nosuch__tool', arguments: {} }).catch(() => undefined)
    await client.close()
    const after = await scrape()
    const requests = /burrow_upstream_requests_total\{upstream="two",method="tools\/call"\} (\d+)/
    assert.ok(count(after, requests) > count(before, requests), after)
    const unknown = /burrow_unknown_prefix_errors_total (\d+)/
    assert.equal(count(after, unknown), count(before, unknown) + 1)
    const health = await fetch(`http://127.0.0.1:${metricsPort}/healthz`)
    assert.equal(await health.text(), 'ok')
  })

  it('a taken metrics port only warns; the tunnel still works', async () => {
    const blocker: Server = createServer()
    const port = await freePort()
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve))
    const tunnel = await service.tunnel('blocked-metrics')
    const other = await startClient(service, tunnel.key, [
      '--stdio',
      everything,
      '--metrics-addr',
      `127.0.0.1:${port}`,
    ])
    try {
      assert.match(other.stderr, new RegExp(`WARN .*metrics.*127\\.0\\.0\\.1:${port}`))
      const { client } = await connectAgent(tunnel.url)
      assert.equal(
        firstText(await client.callTool({ name: 'echo', arguments: { message: 'still' } })),
        'Echo: still',
      )
      await client.close()
    } finally {
      await other.stop()
      blocker.close()
    }
  })
})
