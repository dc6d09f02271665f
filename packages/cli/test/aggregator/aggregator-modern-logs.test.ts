/**
 * Log messages of an aggregate's servers on 2026-07-28 calls (`_meta` logLevel): a line a server
 * writes outside any call's stream is not said to be for any call, so a call hears it only while
 * it is the only agent's call in flight at that server, never while another agent's call runs
 * there beside it.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  allMessagesOf,
  modernMeta,
  sendModern as send,
  untilEventWith,
  SseReader,
} from '../helpers/raw-mcp.js'
import { closeAllAggregators, startAggregator, type Aggregator } from './aggregator-harness.js'

const logged = { ...modernMeta(), 'io.modelcontextprotocol/logLevel': 'debug' }

function logsIn(messages: readonly Record<string, unknown>[]): unknown[] {
  return messages
    .filter((m) => m.method === 'notifications/message')
    .map((m) => (m.params as { data: unknown }).data)
}

describe('log messages on 2026-07-28 calls through an aggregate', { timeout: 30_000 }, () => {
  let agg: Aggregator

  before(async () => {
    agg = await startAggregator([{ name: 'b', stdio: ['--label', 'b'] }])
  })
  after(closeAllAggregators)

  it("relays a server's log lines to the only agent calling it", async () => {
    const params = { name: 'b__log', arguments: { message: 'mine' }, _meta: logged }
    const messages = await allMessagesOf(
      await send(agg.url, 1, 'tools/call', params, { 'burrow-agent': 'agt_a' }),
    )
    assert.deepEqual(logsIn(messages), ['mine'])
  })

  it("keeps one agent's log lines off another agent's call in flight", async () => {
    const slow = {
      name: 'b__slow',
      arguments: { ms: 3_000, steps: 2 },
      _meta: { ...logged, progressToken: 'p' },
    }
    const b = await send(agg.url, 1, 'tools/call', slow, { 'burrow-agent': 'agt_b' })
    const stream = new SseReader(b)
    // b's call is with the server once its first progress comes.
    await untilEventWith(stream, 'notifications/progress')
    const params = { name: 'b__log', arguments: { message: 'secret of a' }, _meta: logged }
    const a = await send(agg.url, 2, 'tools/call', params, { 'burrow-agent': 'agt_a' })
    assert.ok((await allMessagesOf(a)).some((m) => 'result' in m))
    const bMessages = (await stream.rest()).map(
      (e) => JSON.parse(e.data) as Record<string, unknown>,
    )
    assert.deepEqual(logsIn(bMessages), [], JSON.stringify(bMessages))
    assert.ok(bMessages.some((m) => 'result' in m))
  })
})
