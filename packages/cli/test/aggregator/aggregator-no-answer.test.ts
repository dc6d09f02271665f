/**
 * An SDK agent calling, through an aggregate, the tools of an HTTP upstream that answers them
 * wrongly (`misbehaving-mcp-server.ts`) gets, for each, a JSON-RPC error for its call saying what
 * the server did: a 202, an empty 200, a 200 without the answer, a redirect (never followed,
 * whether to another host or to a path of the same server), an SSE stream that ends or breaks
 * before the answer. Before, the call waited for the agent's own timeout on all but the SSE
 * streams (and, through an aggregate, an agent without a timeout for ever).
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  startMisbehavingServer,
  type MisbehavingServer,
} from '../helpers/misbehaving-mcp-server.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  textOf,
  type Agent,
} from './aggregator-harness.js'

/**
 * How long the agent waits for an answer: far longer than any answer takes, so that a call still
 * unanswered then was left waiting (the SDK's error then says it timed out).
 */
const AGENT_WAIT_MS = 30_000

const CASES = {
  accepted: /answered the request with 202 and no response/,
  'accepted-json': /answered the request with 202 and no response/,
  'empty-json': /answered the request with HTTP 200 and an empty body/,
  empty: /answered the request with HTTP 200 and an empty body/,
  'no-answer-json': /answered the request with HTTP 200 and no response to it/,
  'redirect-away':
    /answered the request with a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/mcp\), which burrow does not follow/,
  'redirect-here':
    /answered the request with a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/moved\), which burrow does not follow/,
  'sse-empty': /the response stream ended before the answer/,
  'sse-progress': /the response stream ended before the answer/,
  'sse-broken': /the response stream broke before the answer/,
} as const

describe('an SDK agent through an aggregate, calling a server that answers wrongly', () => {
  let upstream: MisbehavingServer
  let agent: Agent

  before(async () => {
    upstream = await startMisbehavingServer()
    const agg = await startAggregator([{ name: 'm', http: upstream.url }])
    agent = await connectAgent(agg.url)
  })

  after(async () => {
    await closeAllAggregators()
    await upstream.close()
  })

  const call = (name: string) =>
    agent.client.callTool({ name: `m__${name}`, arguments: {} }, undefined, {
      timeout: AGENT_WAIT_MS,
    })

  it('gets the answer of a call answered well', async () => {
    assert.equal(textOf(await call('ok')), 'ok')
  })

  for (const [tool, says] of Object.entries(CASES)) {
    it(`gets an error for its call saying what the server did (${tool})`, async () => {
      await assert.rejects(call(tool), (err: Error & { code?: number }) => {
        assert.doesNotMatch(err.message, /timed out/i)
        assert.equal(err.code, -32000)
        assert.match(err.message, /upstream "m" at http:\/\/127\.0\.0\.1:\d+\/mcp: /)
        assert.match(err.message, says)
        return true
      })
    })
  }

  it('never followed a redirect, and still serves the calls after them', async () => {
    assert.deepEqual(upstream.followed, [])
    assert.equal(textOf(await call('ok')), 'ok')
  })
})
