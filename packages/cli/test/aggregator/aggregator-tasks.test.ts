/**
 * Tasks through an aggregate: it offers none (no `tasks` capability, no `tasks/*` request routed),
 * so a request asking to become a task, or naming one as its related task, reaches its upstream
 * as a plain request and is answered, as MCP asks of a receiver without tasks. Forwarded as it
 * came, the first made a task on the upstream no agent could read, and the second's answer was
 * queued in a task no agent could fetch: the agent waited for ever.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { z } from 'zod'
import { everythingServer } from '../helpers/fixtures.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  textOf,
  type Agent,
  type Aggregator,
} from './aggregator-harness.js'

after(closeAllAggregators)

const RELATED_TASK = 'io.modelcontextprotocol/related-task'

async function echo(agent: Agent, params: Record<string, unknown>): Promise<unknown> {
  const request = {
    method: 'tools/call' as const,
    params: { name: 'ev__echo', arguments: { message: 'plain' }, ...params },
  }
  // The raw result: a task's answer would not pass CallToolResult's schema.
  return agent.client.request(request, z.looseObject({}))
}

describe('tasks through an aggregate', { timeout: 60_000 }, () => {
  let agg: Aggregator

  before(async () => {
    agg = await startAggregator([{ name: 'ev', server: everythingServer }])
  })

  it('answers a call asking to be a task as a plain call', async () => {
    const agent = await connectAgent(agg.url, 'one')
    const answer = (await echo(agent, { task: { ttl: 60_000 } })) as Record<string, unknown>
    assert.equal(answer.task, undefined, JSON.stringify(answer))
    assert.match(textOf(answer), /plain/)
  })

  it("refuses a call of a tool that must be a task with the upstream's refusal", async () => {
    const agent = await connectAgent(agg.url, 'three')
    const call = agent.client.request(
      {
        method: 'tools/call',
        params: { name: 'ev__simulate-research-query', arguments: { topic: 't' }, task: {} },
      },
      z.looseObject({}),
    )
    const answer = (await call) as Record<string, unknown>
    assert.equal(answer.task, undefined, JSON.stringify(answer))
    assert.equal(answer.isError, true)
    assert.match(textOf(answer), /requires task augmentation/)
  })

  it('answers a call naming a related task as a plain call', async () => {
    const agent = await connectAgent(agg.url, 'two')
    for (const taskId of ['no-such-task', 'x'.repeat(10_000)]) {
      const answer = await echo(agent, { _meta: { [RELATED_TASK]: { taskId } } })
      assert.match(textOf(answer), /plain/)
    }
  })
})
