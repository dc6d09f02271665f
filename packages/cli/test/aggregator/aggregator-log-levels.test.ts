/**
 * Log levels of several agents through an aggregate of two stdio upstreams and one Streamable
 * HTTP upstream (the agg-paged-server fixture): every upstream is asked for the most verbose
 * level a live session set, and each agent hears only the lines at or above its own.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
  until,
  type Aggregator,
} from './aggregator-harness.js'
import { assertLevelsApart } from '../helpers/log-level-agents.js'

after(closeAllAggregators)

describe('aggregator log levels', { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    const http = await startHttpFixture(['--label', 'c'])
    agg = await startAggregator([
      { name: 'a', stdio: ['--label', 'a'] },
      { name: 'b', stdio: ['--label', 'b'] },
      { name: 'c', http: http.url },
    ])
  })

  for (const upstream of ['b', 'c']) {
    it(`keeps each agent's level its own (lines of ${upstream})`, async () => {
      await assertLevelsApart({
        connect: (name) => connectAgent(agg.url, name),
        level: async (agent) => {
          const levels = new Set<string>()
          for (const name of ['a', 'b', 'c']) {
            levels.add(textOf(await agent.client.callTool({ name: `${name}__level` })))
          }
          assert.equal(levels.size, 1, `upstreams at different levels: ${[...levels].join(', ')}`)
          return [...levels][0]!
        },
        log: async (agent, level, message) => {
          const args = { level, message }
          await agent.client.callTool({ name: `${upstream}__log`, arguments: args })
        },
        until,
      })
    })
  }

  it('asks an HTTP upstream for one level at a time, so the last one asked for holds', async () => {
    // Two logging/setLevel POSTs in flight at once may be applied in either order: this upstream
    // applies `error` 300 ms late, so sent together the earlier `error` won over the later
    // `debug`, and the agent that asked for debug heard errors only (found by a review).
    const http = await startHttpFixture(['--label', 's', '--slow-level', 'error:300'])
    const slow = await startAggregator([{ name: 's', http: http.url }])
    const agent = await connectAgent(slow.url, 'both')
    await Promise.all([
      agent.client.setLoggingLevel('error'),
      agent.client.setLoggingLevel('debug'),
    ])
    assert.equal(textOf(await agent.client.callTool({ name: 's__level' })), 'debug')
    await agent.client.callTool({ name: 's__log', arguments: { level: 'debug', message: 'fine' } })
    await until(() => agent.logs.some((line) => line.data === 'fine'))
  })

  it('refuses a level that is not MCP’s', async () => {
    const agent = await connectAgent(agg.url, 'odd')
    await assert.rejects(
      agent.client.setLoggingLevel('verbose' as 'debug'),
      /-32602.*needs a "level" among/,
    )
  })
})
