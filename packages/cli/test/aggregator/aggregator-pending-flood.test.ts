/**
 * One agent filling an aggregate's server with calls drops its own, not another agent's: when
 * the server's table of calls in flight is full, the oldest call of the agent with the most in
 * flight goes. Before, the oldest call went, whoever made it, so an agent sending 10,000 slow
 * calls had another agent's call cancelled at the server and answered with an error (found by a
 * review). Real fixture server over stdio, raw agents; the table is 40 calls here.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { closeAllAggregators, startAggregator } from './aggregator-harness.js'
import { answerOf, initialize } from '../helpers/raw-mcp.js'

after(closeAllAggregators)

const slowCall = (id: number, ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'b__slow', arguments: { ms } },
})

describe("an aggregate's server flooded by one agent", { timeout: 60_000 }, () => {
  it("keeps another agent's call, and drops the flooding agent's oldest", async () => {
    const agg = await startAggregator([{ name: 'b', stdio: [] }], { pendingLimit: 40 })
    const victim = await initialize(agg.url, '2025-11-25')
    const flooder = await initialize(agg.url, '2025-03-26')
    const victimCall = victim.post(slowCall(1, 1_500))
    const stop = new AbortController()
    // 2025-03-26 allows batches: 50 calls in one POST, more than the table holds.
    const batch = Array.from({ length: 50 }, (_, i) => slowCall(i + 1, 30_000))
    const flood = flooder.post(batch, stop.signal)
    const answer = (await answerOf(await victimCall)) as { result?: unknown; error?: unknown }
    assert.ok(answer.result, `the other agent's call: ${JSON.stringify(answer)}`)
    // The flooding agent's own oldest calls were the ones dropped.
    const dropped = agg.metrics.calls.filter((c) => c.startsWith('idEviction'))
    assert.ok(dropped.length >= 10, `evictions: ${dropped.length}`)
    stop.abort()
    await flood.catch(() => {})
  })
})
