/**
 * Through real burrowd and `burrow up --upstream` processes, the official SDK client as an agent
 * calls tools of a local HTTP server that answers them wrongly (`misbehaving-mcp-server.ts`): a
 * call answered with 202 gets the refusal envelope with its id, one whose SSE stream ends or
 * breaks before the answer gets an error event for it, where it waited for its own timeout
 * before; a stream ended after a priming event is still resumed by the agent, and redirects are
 * followed by nobody out of the tunnel.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  startMisbehavingServer,
  type MisbehavingServer,
} from '../../packages/cli/test/helpers/misbehaving-mcp-server.js'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { startClient, startService, type Service } from '../helpers/stack.js'

/**
 * How long the agent waits for an answer: far longer than any answer takes, so that a call still
 * unanswered then was left waiting (the SDK's error then says it timed out).
 */
const AGENT_WAIT_MS = 30_000

describe('an SDK agent through a tunnel to a local HTTP server that answers wrongly', () => {
  let service: Service
  let upstream: MisbehavingServer
  let cli: Child
  let client: Client

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    upstream = await startMisbehavingServer()
    const tunnel = await service.tunnel('misbehaving')
    cli = await startClient(service, tunnel.key, ['--upstream', upstream.url])
    client = new Client({ name: 'e2e-agent', version: '1' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(tunnel.url), { fetch: publicFetch }),
    )
  })

  after(async () => {
    await client?.close()
    await cli?.stop()
    await upstream?.close()
    await service?.close()
  })

  const call = (name: string) =>
    client.callTool({ name, arguments: {} }, undefined, { timeout: AGENT_WAIT_MS })

  it('gets the envelope with its id for a call the server accepted with 202', async () => {
    await assert.rejects(call('accepted'), (err: Error) => {
      assert.doesNotMatch(err.message, /timed out/i)
      const body = JSON.parse(err.message.slice(err.message.indexOf('{'))) as {
        id: number
        error: { data: { policy_code: string; reason: string } }
      }
      assert.equal(typeof body.id, 'number')
      assert.equal(body.error.data.policy_code, 'upstream_unreachable')
      assert.match(body.error.data.reason, /answered the request with 202 and no response/)
      return true
    })
  })

  for (const tool of ['sse-empty', 'sse-broken']) {
    it(`gets an error for a call whose response stream ends without the answer (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error & { code?: number }) => {
        assert.doesNotMatch(err.message, /timed out/i)
        assert.equal(err.code, -32000)
        assert.match(err.message, /the local server (ended|broke off) its response stream/)
        return true
      })
    })
  }

  it('resumes a stream the server ended after a priming event', async () => {
    const result = (await call('sse-primed')) as { content: { text: string }[] }
    assert.equal(result.content[0]?.text, 'resumed')
  })

  it('fails redirected calls, following nothing out of the tunnel', async () => {
    for (const tool of ['redirect-away', 'redirect-here']) {
      await assert.rejects(call(tool), (err: Error) => {
        assert.doesNotMatch(err.message, /timed out/i)
        return true
      })
    }
    assert.deepEqual(upstream.followed, [])
    const result = (await call('ok')) as { content: { text: string }[] }
    assert.equal(result.content[0]?.text, 'ok')
  })
})
