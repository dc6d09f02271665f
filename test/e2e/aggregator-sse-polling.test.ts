/**
 * Through real burrowd and `burrow up` processes aggregating two local HTTP servers, the official
 * SDK client as an agent calls tools whose response streams the servers end before the answer,
 * after an event id (MCP 2025-11-25 SSE polling): an MCP SDK server that closes them with its
 * `closeSSEStream` (`polling-sdk-server.mjs`), and a hand-written one that answers on the resume
 * (`misbehaving-mcp-server.ts`). The aggregate resumes each (GET with Last-Event-ID) and the
 * agent gets the answer; before, the call failed as soon as the stream ended. A stream without an
 * event id still fails at once.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  startMisbehavingServer,
  type MisbehavingServer,
} from '../../packages/cli/test/helpers/misbehaving-mcp-server.js'
import { firstText } from '../helpers/agent-scenario.js'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

/** Far longer than any answer takes: a call still unanswered then was left waiting. */
const AGENT_WAIT_MS = 30_000

describe('an aggregate resuming the response streams of local HTTP servers', () => {
  let service: Service
  let polling: Child
  let misbehaving: MisbehavingServer
  let cli: Child
  let client: Client

  before(async () => {
    polling = startChild(process.execPath, [
      join(ROOT, 'test/fixtures/polling-sdk-server.mjs'),
      '--http',
      '0',
    ])
    const [, port] = await polling.waitFor(/listening on (\d+)/)
    misbehaving = await startMisbehavingServer()
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('polling')
    cli = await startClient(service, tunnel.key, [
      '--upstream',
      `p=http://127.0.0.1:${port}/mcp`,
      '--upstream',
      `m=${misbehaving.url}`,
    ])
    client = new Client({ name: 'e2e-agent', version: '1' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(tunnel.url), { fetch: publicFetch }),
    )
  })

  after(async () => {
    await client?.close()
    await cli?.stop()
    await polling?.stop()
    await misbehaving?.close()
    await service?.close()
  })

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    firstText(
      await client.callTool({ name, arguments: args }, undefined, { timeout: AGENT_WAIT_MS }),
    )

  it('gets the answers of calls whose streams an SDK server closed to be polled', async () => {
    assert.equal(await call('p__slow', { ms: 300 }), 'slow answered')
    assert.equal(await call('p__twice'), 'twice answered')
    assert.ok(Number(await call('p__resumes')) >= 3, 'the answers came on resumed streams')
  })

  it('gets the answer a server gives on the resume of a stream it ended after a priming event', async () => {
    assert.equal(await call('m__sse-primed'), 'resumed')
    assert.equal(misbehaving.resumed.length, 1)
  })

  it('still fails at once a call whose stream ended with no event id', async () => {
    const asked = misbehaving.resumeAsks.length
    await assert.rejects(call('m__sse-progress'), (err: Error & { code?: number }) => {
      assert.doesNotMatch(err.message, /timed out/i)
      assert.equal(err.code, -32000)
      assert.match(err.message, /upstream "m" at .*: the response stream ended before the answer$/)
      return true
    })
    assert.equal(misbehaving.resumeAsks.length, asked, 'no resumption was tried')
  })
})
