/**
 * Task status notifications of an aggregate's servers: an aggregate forwards no `tasks/*`
 * request, so no agent can use a task through it, and a server's `notifications/tasks/status`
 * (which names a task of one agent's call, with its status message) reaches no agent.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  textOf,
  until,
  type Aggregator,
} from './aggregator-harness.js'

after(closeAllAggregators)

describe('task status through an aggregate', { timeout: 30_000 }, () => {
  let agg: Aggregator

  before(async () => {
    agg = await startAggregator([{ name: 'a', stdio: ['--label', 'a'] }])
  })

  it("reaches no agent, the caller's or another's", async () => {
    const one = await connectAgent(agg.url, 'one')
    const two = await connectAgent(agg.url, 'two')
    const statuses: unknown[] = []
    for (const agent of [one, two]) {
      agent.client.setNotificationHandler(TaskStatusNotificationSchema, async (n) => {
        statuses.push(n.params)
      })
    }
    assert.equal(textOf(await one.client.callTool({ name: 'a__task-status' })), 'status sent')
    // The server wrote a log line right after the status: once both heard it, the status is past.
    await until(() => [one, two].every((agent) => agent.logs.some((l) => l.data === 'after')))
    assert.deepEqual(statuses, [])
  })
})
