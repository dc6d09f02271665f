/**
 * The official SDK client as an agent, through the HTTP relay (served on 127.0.0.1 as the tunnel
 * hands it requests), calling tools of a local server that answers them wrongly
 * (`misbehaving-mcp-server.ts`). The relay passes answers as they come, so what matters is what
 * the agent does with each: where it would wait for an answer that never comes (a 202, an SSE
 * stream that ends or breaks before the answer), the relay answers the call itself with the
 * refusal envelope carrying the call's id; where the SDK already fails the call (an empty 200, a
 * redirect, which it follows only within the tunnel's origin), the answer passes as it came.
 * Before, the SDK waited for its own timeout on 202, `accepted-json`, and the three SSE cases.
 */
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { silentLogger } from '@burrow/protocol'
import { HttpRelay } from '../../src/relay/http-relay.js'
import { serveOverHttp } from '../../src/relay/node-http-adapter.js'
import {
  startMisbehavingServer,
  type MisbehavingServer,
} from '../helpers/misbehaving-mcp-server.js'

/**
 * How long the agent waits for an answer: far longer than any answer takes, so that a call still
 * unanswered then was left waiting (the SDK's error then says it timed out).
 */
const AGENT_WAIT_MS = 30_000

describe('an SDK agent through the relay, calling a server that answers wrongly', () => {
  let upstream: MisbehavingServer
  let relay: HttpRelay
  let server: Server
  let client: Client

  before(async () => {
    upstream = await startMisbehavingServer()
    relay = new HttpRelay(upstream.url, silentLogger)
    server = serveOverHttp(relay)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)
    client = new Client({ name: 'agent', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(url))
  })

  after(async () => {
    await client.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await relay.close()
    await upstream.close()
  })

  const call = (name: string) =>
    client.callTool({ name, arguments: {} }, undefined, { timeout: AGENT_WAIT_MS })

  it('gets the answer of a server that answers well', async () => {
    const result = (await call('ok')) as { content: { text: string }[] }
    assert.equal(result.content[0]?.text, 'ok')
  })

  for (const tool of ['accepted', 'accepted-json']) {
    it(`is answered with the envelope when the server answers a call with 202 (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error) => {
        assert.doesNotMatch(err.message, /timed out/i)
        assert.match(err.message, /502/)
        assert.match(err.message, /"x-burrow-error"|upstream_unreachable/)
        assert.match(err.message, /answered the request with 202 and no response/)
        return true
      })
    })
  }

  for (const tool of ['sse-empty', 'sse-progress', 'sse-broken']) {
    it(`is answered with an error when the response stream ends without the answer (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error & { code?: number }) => {
        assert.doesNotMatch(err.message, /timed out/i)
        assert.equal(err.code, -32000)
        assert.match(
          err.message,
          /the local server (ended|broke off) its response stream before the answer/,
        )
        return true
      })
    })
  }

  it('still resumes a stream the server ended after a priming event, and gets its answer', async () => {
    const result = (await call('sse-primed')) as { content: { text: string }[] }
    assert.equal(result.content[0]?.text, 'resumed')
    assert.equal(upstream.resumed.length, 1)
  })

  // What the SDK does on its own, unchanged by the relay: it fails these calls at once.
  for (const tool of ['empty-json', 'empty']) {
    it(`fails a call the server answered with an empty 200 itself (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error) => {
        assert.doesNotMatch(err.message, /timed out/i)
        return true
      })
    })
  }

  for (const tool of ['redirect-away', 'redirect-here']) {
    it(`fails a call the server redirected, following nothing out of the tunnel (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error) => {
        assert.doesNotMatch(err.message, /timed out/i)
        assert.match(err.message, /307|redirect/i)
        return true
      })
      assert.deepEqual(upstream.followed, [], 'neither the relay nor the agent left the tunnel')
    })
  }
})
