/**
 * One agent's call that an aggregate's HTTP server refuses with HTTP 400 and an error quoting the
 * call's input ("session" in it) ends nothing but that call: the aggregate asks the server, with
 * a ping under its session, before it takes the session as gone. Before, it dropped the session
 * at once, and every other agent's call in flight at that server failed (found by a review).
 * The fixture server over Streamable HTTP refuses its unlisted `refuse-400` tool so.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import {
  closeAllAggregators,
  connectAgent,
  startAggregator,
  startHttpFixture,
  textOf,
} from './aggregator-harness.js'

after(closeAllAggregators)

describe(
  "an aggregate's HTTP server refusing one agent's call with 400",
  { timeout: 60_000 },
  () => {
    it("keeps the session and the other agents' calls", async () => {
      const http = await startHttpFixture(['--label', 'h'])
      const agg = await startAggregator([{ name: 'h', http: http.url }])
      const victim = await connectAgent(agg.url, 'victim')
      const attacker = await connectAgent(agg.url, 'attacker')
      const slow = victim.client.callTool({ name: 'h__slow', arguments: { ms: 1_000 } })
      for (let i = 0; i < 5; i++) {
        await assert.rejects(
          attacker.client.callTool({ name: 'h__refuse-400', arguments: { key: 'session' } }),
          /-32602.*no such key "session"/,
        )
      }
      assert.equal(textOf(await slow), 'slept 1000 ms')
      const counts = JSON.parse(textOf(await victim.client.callTool({ name: 'h__counts' }))) as {
        initialize: number
      }
      assert.equal(counts.initialize, 1, 'the server was not initialized again')
      assert.ok(!agg.logger.lines.some((l) => /no longer knows our session/.test(l)))
    })
  },
)
