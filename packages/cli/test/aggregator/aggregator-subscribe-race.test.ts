/**
 * An agent's subscription to an aggregate's resource holds while another agent leaves the same
 * subscription. The aggregate records a subscribe once its upstream answers it (the answer says
 * which upstream serves the URI); before, the last recorded subscriber's unsubscribe (or session
 * end) meanwhile was forwarded, the upstream applied it after the other's subscribe, and the
 * agent told it was subscribed heard no update (found by a review). The fixture applies a
 * subscribe when it comes and answers 300 ms later. The other way round too: a subscribe waits
 * for an unsubscribe of its URI still on its way, which the server could apply after it. And a
 * session's subscribes on their way count against its bound: before, a subscribe was counted
 * once answered, so subscribes sent at once all passed it (found by a hostile review).
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { closeAllAggregators, connectAgent, startAggregator, until } from './aggregator-harness.js'
import { MAX_SUBSCRIPTIONS_PER_SESSION } from '../../src/front/resource-subscriptions.js'
import { allMessagesOf, initialize } from '../helpers/raw-mcp.js'

after(closeAllAggregators)

describe('a subscription of an aggregate shared by agents', { timeout: 60_000 }, () => {
  for (const leaving of ['unsubscribes', 'ends its session'] as const) {
    it(`holds when the last subscriber ${leaving} while another subscribes`, async () => {
      const agg = await startAggregator([{ name: 'b', stdio: ['--slow-subscribe', '300'] }])
      const uri = 'mem://srv/readme'
      const first = await connectAgent(agg.url, 'first')
      const second = await connectAgent(agg.url, 'second')
      const updates: string[] = []
      second.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
        updates.push(n.params.uri)
      })
      await first.client.subscribeResource({ uri })
      const subscribing = second.client.subscribeResource({ uri })
      // The second subscribe is at the upstream (applied, not answered yet): the first leaves.
      await agg.logger.waitForCount(/\[b\] subscribe mem:\/\/srv\/readme/, 2)
      if (leaving === 'unsubscribes') await first.client.unsubscribeResource({ uri })
      else await first.transport.terminateSession()
      assert.deepEqual(await subscribing, {})
      await second.client.callTool({ name: 'b__touch', arguments: { uri } })
      await until(() => updates.length === 1)
      assert.ok(!agg.logger.lines.some((l) => /\[b\] unsubscribe/.test(l)), 'never unsubscribed')
      // The second leaves in turn: now nobody is subscribed, and the upstream is told.
      await second.client.unsubscribeResource({ uri })
      await agg.logger.waitFor(/\[b\] unsubscribe mem:\/\/srv\/readme/)
    })
  }

  it("sends a subscribe after the last subscriber's unsubscribe is answered", async () => {
    const agg = await startAggregator([{ name: 'b', stdio: ['--slow-unsubscribe', '300'] }])
    const uri = 'mem://srv/readme'
    const first = await connectAgent(agg.url, 'first')
    const second = await connectAgent(agg.url, 'second')
    await first.client.subscribeResource({ uri })
    await agg.logger.waitFor(/\[b\] subscribe mem:\/\/srv\/readme/)
    // The first leaves (the server applies it 300 ms later); the second subscribes meanwhile.
    const leaving = first.client.unsubscribeResource({ uri })
    await until(() => agg.metrics.calls.includes('request b,resources/unsubscribe'))
    await second.client.subscribeResource({ uri })
    await leaving
    const events = agg.logger.lines.filter((l) => /\[b\] (un)?subscribe mem:/.test(l))
    assert.match(
      events.at(-1) ?? '',
      /\[b\] subscribe/,
      `the server's last word: ${events.join(' | ')}`,
    )
  })

  it('holds a session to its bound while its subscribes are on their way', async () => {
    // The server takes its time to answer: every subscribe below is still on its way when the
    // last ones come.
    const agg = await startAggregator([{ name: 'b', stdio: ['--slow-subscribe', '20000'] }])
    const agent = await initialize(agg.url, '2025-03-26')
    const subscribes = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        jsonrpc: '2.0',
        id: from + i,
        method: 'resources/subscribe',
        params: { uri: `mem://b/n-${from + i}` },
      }))
    // A batch holds 100 messages at most: the session's whole bound, in ten POSTs at once.
    const stop = new AbortController()
    const posts: Promise<unknown>[] = []
    for (let at = 0; at < MAX_SUBSCRIPTIONS_PER_SESSION; at += 100) {
      posts.push(agent.post(subscribes(at, 100), stop.signal).catch(() => {}))
    }
    await agg.logger.waitForCount(/\[b\] subscribe mem:/, MAX_SUBSCRIPTIONS_PER_SESSION)
    const answers = (await allMessagesOf(await agent.post(subscribes(5_000, 50)))).flat()
    assert.equal(answers.length, 50)
    for (const answer of answers) {
      assert.match(JSON.stringify(answer), /subscribed to 1000 resources/)
    }
    assert.equal(agg.logger.lines.filter((l) => /\[b\] subscribe mem:/.test(l)).length, 1000)
    stop.abort()
    await Promise.all(posts)
  })
})
