/**
 * Log levels of several agents over one stdio server (the agg-paged-server fixture, whose `log`
 * tool writes a line at the level asked and `level` tells the last logging/setLevel it got),
 * through the real front and the official SDK client: the server is asked for the most verbose
 * level any session set, each agent hears only the lines at or above its own, and the server
 * goes back to the others' level when the session that asked for the most leaves.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { fixturePath } from '../helpers/fixtures.js'
import { closeAllFronts, serveStdioFront, type ServedFront } from '../helpers/serve-front.js'
import { connectAgent, textOf, until, type Agent } from '../aggregator/aggregator-harness.js'
import { assertLevelsApart } from '../helpers/log-level-agents.js'

describe('log levels over one stdio server', { timeout: 60_000 }, () => {
  let served: ServedFront

  before(async () => {
    served = await serveStdioFront({
      command: process.execPath,
      args: [fixturePath('agg-paged-server.mjs')],
    })
  })

  after(async () => {
    await closeAllFronts()
  })

  it("keeps each agent's level its own", async () => {
    await assertLevelsApart({
      connect: (name: string): Promise<Agent> => connectAgent(served.url, name),
      level: async (agent) => textOf(await agent.client.callTool({ name: 'level' })),
      log: async (agent, level, message) => {
        await agent.client.callTool({ name: 'log', arguments: { level, message } })
      },
      until,
    })
  })

  it('refuses a level that is not MCP’s and keeps the one in force', async () => {
    const agent = await connectAgent(served.url, 'odd')
    await agent.client.setLoggingLevel('notice')
    await assert.rejects(
      agent.client.request(
        { method: 'logging/setLevel', params: { level: 'verbose' } },
        EmptyResultSchema,
      ),
      /-32602.*needs a "level" among/,
    )
    assert.equal(textOf(await agent.client.callTool({ name: 'level' })), 'notice')
    await agent.client.close()
  })
})
