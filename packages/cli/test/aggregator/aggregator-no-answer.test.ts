/**
 * An SDK agent calling, through an aggregate, the tools of an HTTP upstream that answers them
 * wrongly (`misbehaving-mcp-server.ts`) gets, for each, a JSON-RPC error for its call saying what
 * the server did: a 202, an empty 200, a 200 without the answer, a redirect (never followed,
 * whether to another host or to a path of the same server), an SSE stream that ends or breaks
 * before the answer without an event id to resume it from (no resumption is tried), or one that
 * the server ends again each time it is resumed (given up after the bound). Before, the call
 * waited for the agent's own timeout on all but the SSE streams (and, through an aggregate, an
 * agent without a timeout for ever). A stream ended after its priming event is resumed, and the
 * answer on the resumed stream reaches the agent; before, that call failed too.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  startMisbehavingServer,
  type MisbehavingServer,
} from '../helpers/misbehaving-mcp-server.js'
import { RESUME_LIMITS } from '../../src/aggregator/stream-resumption.js'
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
  'sse-primed-closing':
    /the response stream ended before the answer, and burrow stopped resuming it after 5 attempts \(the bound\)/,
} as const

/** Small bounds of resumption, so that the server that closes every resumed stream fails fast. */
const LIMITS = { ...RESUME_LIMITS, maxResumes: 5, minDelayMs: 10 }

describe('an SDK agent through an aggregate, calling a server that answers wrongly', () => {
  let upstream: MisbehavingServer
  let agent: Agent

  before(async () => {
    upstream = await startMisbehavingServer()
    const agg = await startAggregator([{ name: 'm', http: upstream.url, resumeLimits: LIMITS }])
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

  it('resumed only the streams that carried an event id, each a bounded number of times', async () => {
    const closing = upstream.resumeAsks.filter((id) => id.startsWith('closing-'))
    assert.equal(closing.length, 5)
    assert.deepEqual(
      upstream.resumeAsks.filter((id) => !id.startsWith('closing-')),
      [],
      'no stream without an id was resumed',
    )
  })

  it('gets the answer of a call whose stream ended after its priming event, from the resumed stream', async () => {
    assert.equal(textOf(await call('sse-primed')), 'resumed')
    assert.equal(upstream.resumed.length, 1)
  })

  it('never followed a redirect, and still serves the calls after them', async () => {
    assert.deepEqual(upstream.followed, [])
    assert.equal(textOf(await call('ok')), 'ok')
  })
})
