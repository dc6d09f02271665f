/**
 * An SDK agent calling, through an aggregate, the tools of an MCP SDK server that uses SSE polling
 * (MCP 2025-11-25; `polling-sdk-server.mjs`: an event store, `retry: 50`, and tools that close
 * their streams with the SDK's `closeSSEStream`): the aggregate resumes each stream (GET with
 * Last-Event-ID) and the agent gets its answer, where before the call failed as soon as the
 * stream ended. The GET stream, closed by the server, is resumed too, and what the server logged
 * meanwhile reaches the agent.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
  until,
  type Agent,
} from './aggregator-harness.js'

describe('an aggregate over an SDK server that uses SSE polling', { timeout: 60_000 }, () => {
  let agent: Agent

  before(async () => {
    const polling = await startHttpFixture([], 0, fixturePath('polling-sdk-server.mjs'))
    const paged = await startHttpFixture([])
    const agg = await startAggregator([
      { name: 'p', http: polling.url, reopenGetMs: 500 },
      { name: 'o', http: paged.url },
    ])
    agent = await connectAgent(agg.url)
  })

  after(async () => {
    await closeAllAggregators()
  })

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    textOf(await agent.client.callTool({ name: `p__${name}`, arguments: args }))

  it('gets the answer of a call whose stream the server closed after its priming event', async () => {
    const before = Number(await call('resumes'))
    assert.equal(await call('slow', { ms: 300 }), 'slow answered')
    // Answered before the resume, the answer is replayed on it.
    assert.equal(await call('slow', { ms: 0 }), 'slow answered')
    assert.ok(Number(await call('resumes')) >= before + 2, 'the answers came on resumed streams')
  })

  it('resumes a resumed stream the server closed again, and passes on what came between', async () => {
    const before = Number(await call('resumes'))
    assert.equal(await call('twice'), 'twice answered')
    assert.ok(Number(await call('resumes')) >= before + 2, 'resumed twice')
    assert.ok(
      agent.logs.some((l) => l.data === 'between closes'),
      JSON.stringify(agent.logs),
    )
  })

  it('resumes the GET stream the server closed, hearing what it sent meanwhile', async () => {
    // The GET stream is open once a log sent on it arrives.
    await until(async () => {
      await call('hello')
      return agent.logs.some((l) => l.data === 'hello')
    })
    assert.equal(await call('announce'), 'announced')
    await until(() => agent.logs.some((l) => l.data === 'while closed'))
    assert.ok(agent.logs.some((l) => l.data === 'before close'))
  })
})
