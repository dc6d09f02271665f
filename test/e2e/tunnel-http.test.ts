// End to end through real burrowd and burrow processes to server-everything in its Streamable
// HTTP mode, with the official SDK client as the agent.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  connectAgent,
  exerciseEverything,
  firstText,
  statusForSession,
} from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { EVERYTHING, startClient, startService, type Service } from '../helpers/stack.js'

describe('tunnel to an HTTP upstream (server-everything streamableHttp)', () => {
  let service: Service
  let upstream: Child
  let upstreamPort: number
  let cli: Child
  let url: string

  const startUpstream = async () => {
    const child = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(upstreamPort) },
    })
    await child.waitFor(/listening|port/i)
    return child
  }

  before(async () => {
    upstreamPort = await freePort()
    upstream = await startUpstream()
    service = await startService()
    const tunnel = await service.tunnel('files')
    url = tunnel.url
    cli = await startClient(service, tunnel.key, [
      '--upstream',
      `http://127.0.0.1:${upstreamPort}/mcp`,
    ])
  })

  after(async () => {
    await cli?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it('serves the whole MCP session through the tunnel', async () => {
    const { client, transport } = await connectAgent(url)
    await exerciseEverything(client)
    const sessionId = transport.sessionId
    assert.ok(sessionId)
    await transport.terminateSession()
    assert.equal(
      await statusForSession(url, sessionId),
      404,
      'a deleted session is unknown to the upstream',
    )
    await client.close()
  })

  it('answers 404 for a session after the local server restarts, then a fresh initialize works', async () => {
    const { client } = await connectAgent(url)
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'before' } })),
      'Echo: before',
    )
    await upstream.stop()
    upstream = await startUpstream()
    await assert.rejects(
      client.callTool({ name: 'echo', arguments: { message: 'stale' } }),
      (err: unknown) => err instanceof StreamableHTTPError && err.code === 404,
    )
    await client.close()
    const fresh = await connectAgent(url)
    assert.equal(
      firstText(await fresh.client.callTool({ name: 'echo', arguments: { message: 'after' } })),
      'Echo: after',
    )
    await fresh.client.close()
  })

  it('gives the agent a 502 naming the URL and the cause when the local server is down', async () => {
    await upstream.stop()
    try {
      const res = await publicFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      })
      assert.equal(res.status, 502)
      assert.equal(res.headers.get('x-burrow-error'), 'upstream_unreachable')
      const body = (await res.json()) as { error: { data: { reason: string } } }
      assert.match(body.error.data.reason, new RegExp(`127\\.0\\.0\\.1:${upstreamPort}/mcp`))
      assert.match(body.error.data.reason, /ECONNREFUSED/)
    } finally {
      upstream = await startUpstream()
    }
  })
})
