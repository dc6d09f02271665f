/**
 * Resource subscriptions of several agents over one stdio server (the agg-paged-server fixture,
 * whose `touch` tool sends `notifications/resources/updated`), through the real front and the
 * official SDK client: updates reach only the agents subscribed to the URI, an agent that never
 * subscribed cannot end another's subscription, and the server is unsubscribed when the last
 * subscriber leaves.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { captureLogger, type CaptureLogger } from '../helpers/capture-logger.js'
import { fixturePath } from '../helpers/fixtures.js'
import { MAX_SUBSCRIPTIONS_PER_SESSION } from '../../src/front/resource-subscriptions.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'

const URI = 'mem://srv/readme'

interface Agent {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  readonly updates: string[]
}

async function connect(url: URL, name: string): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(url)
  const agent: Agent = { client, transport, updates: [] }
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
    agent.updates.push(n.params.uri)
  })
  await client.connect(transport)
  return agent
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('resource subscriptions over one stdio server', () => {
  let served: ServedFront
  let logger: CaptureLogger

  before(async () => {
    logger = captureLogger()
    served = await serveStdioFront({
      command: process.execPath,
      args: [fixturePath('agg-paged-server.mjs')],
      logger,
    })
  })

  after(async () => {
    await closeAllFronts()
  })

  it('sends updates only to subscribers; only the last one unsubscribes the server', async () => {
    const a = await connect(served.url, 'a')
    const b = await connect(served.url, 'b')
    const c = await connect(served.url, 'c')
    await a.client.subscribeResource({ uri: URI })
    await c.client.subscribeResource({ uri: URI })
    const touch = () => a.client.callTool({ name: 'touch', arguments: { uri: URI } })
    await touch()
    await until(() => a.updates.length === 1 && c.updates.length === 1)
    // b never subscribed: its unsubscribe is answered here and ends nobody's subscription.
    assert.deepEqual(await b.client.unsubscribeResource({ uri: URI }), {})
    await c.client.unsubscribeResource({ uri: URI })
    await touch()
    await until(() => a.updates.length === 2)
    assert.ok(!logger.lines.some((l) => /unsubscribe/.test(l)), 'the server was not unsubscribed')
    // a leaves without unsubscribing: its session's end unsubscribes the server.
    await a.transport.terminateSession()
    await logger.waitFor(new RegExp(`unsubscribe ${URI}`))
    await b.client.callTool({ name: 'touch', arguments: { uri: URI } })
    assert.deepEqual(b.updates, [], 'b never received an update')
    assert.equal(c.updates.length, 1, 'c received none after it unsubscribed')
    for (const agent of [a, b, c]) await agent.client.close()
  })

  it('refuses a session more subscriptions than the bound, with the request id', async () => {
    const agent = await connect(served.url, 'many')
    const uris = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SESSION }, (_, i) => `mem://srv/n-${i}`)
    for (let at = 0; at < uris.length; at += 100) {
      await Promise.all(
        uris.slice(at, at + 100).map((uri) => agent.client.subscribeResource({ uri })),
      )
    }
    const refused = await agent.client.subscribeResource({ uri: 'mem://srv/one-more' }).then(
      () => null,
      (err: unknown) => err,
    )
    assert.ok(refused instanceof McpError, String(refused))
    assert.equal(refused.code, -32000)
    assert.match(refused.message, /subscribed to 1000 resources/)
    assert.ok(!logger.lines.some((l) => /subscribe mem:\/\/srv\/one-more/.test(l)), 'not forwarded')
    await agent.client.unsubscribeResource({ uri: uris[0]! })
    await agent.client.subscribeResource({ uri: 'mem://srv/one-more' })
    await agent.transport.terminateSession()
  })

  it('forgets a subscription the server refused', async () => {
    const agent = await connect(served.url, 'refused')
    const refused = await agent.client.subscribeResource({ uri: 'mem://srv/refused-1' }).then(
      () => null,
      (err: unknown) => err,
    )
    assert.ok(refused instanceof McpError, String(refused))
    await agent.client.subscribeResource({ uri: URI })
    // Updates arrive in order: the refused URI's, had it been kept, would come first.
    const touch = (uri: string) => agent.client.callTool({ name: 'touch', arguments: { uri } })
    await touch('mem://srv/refused-1')
    await touch(URI)
    await until(() => agent.updates.length > 0)
    assert.deepEqual(agent.updates, [URI])
    await agent.transport.terminateSession()
  })
})
