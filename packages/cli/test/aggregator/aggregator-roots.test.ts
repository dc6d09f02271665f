/**
 * Roots and the upstreams of an aggregate, each of which has one session that every agent
 * shares: the roots-following-server fixture (over stdio, and over Streamable HTTP) replaces its
 * allowed directories with its client's roots, as the reference filesystem server does. The
 * aggregate declares no `roots` to them, forwards no agent's `roots/list_changed`, and answers
 * their `roots/list` itself with an error; sampling still reaches the agent that caused it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { fixturePath } from '../helpers/fixtures.js'
import { connectRootsAgent } from '../helpers/roots-agent.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
  type Aggregator,
} from './aggregator-harness.js'

const SCRIPT = fixturePath('roots-following-server.mjs')
const PROJECT = 'file:///home/owner/project'

/** What the fixture's `allowed` tool reports. */
interface Followed {
  allowed: string[]
  declared: boolean[]
  refusals: string[]
}

after(closeAllAggregators)

describe("an aggregate's upstreams that follow their client roots", { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    const http = await startHttpFixture(['--allow', PROJECT], 0, SCRIPT)
    agg = await startAggregator([
      { name: 's', server: { command: process.execPath, args: [SCRIPT, '--allow', PROJECT] } },
      { name: 'h', http: http.url },
      { name: 'p', stdio: ['--label', 'p'] },
    ])
  })

  it('hostile: keep their own directories whatever roots agents declare and announce', async () => {
    const owner = await connectRootsAgent(agg.url, [PROJECT])
    const hostile = await connectRootsAgent(agg.url, ['file:///'])
    await hostile.client.sendRootsListChanged()
    for (const upstream of ['s', 'h']) {
      assert.equal(
        await hostile.call(`${upstream}__ask-roots`, { later: true }),
        'asking after this answer',
      )
      const seen = JSON.parse(await owner.call(`${upstream}__allowed`)) as Followed
      assert.deepEqual(seen.allowed, [PROJECT], upstream)
      assert.deepEqual(seen.declared, [false], `${upstream}: its handshake declared no roots`)
      assert.equal(seen.refusals.length, 1, upstream)
      assert.match(seen.refusals[0]!, /shares this server between agents/)
    }
    assert.equal(owner.asked() + hostile.asked(), 0, 'no agent was asked for its roots')
    assert.equal(agg.metrics.count('fanout notifications/roots/list_changed'), 0)
  })

  it('answer their roots/list during a call with an error, and sampling still reaches its agent', async () => {
    const agent = await connectRootsAgent(agg.url, ['file:///'])
    for (const upstream of ['s', 'h']) {
      assert.match(
        await agent.call(`${upstream}__ask-roots`),
        /MCP error -32601: .*shares this server/,
      )
    }
    await assert.rejects(agent.call('p__roots'), /shares this server between agents/)
    assert.equal(agent.asked(), 0)
    const sampler = await connectAgent(agg.url, 'sampler')
    const asked = await sampler.client.callTool({ name: 'p__ask', arguments: { prompt: 'hi' } })
    assert.equal(textOf(asked), 'p got: sampler says: hi')
  })
})
