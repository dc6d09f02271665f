/**
 * An agent's subscription to an aggregate's resource holds while another agent leaves the same
 * subscription. The aggregate records a subscribe once its upstream answers it (the answer says
 * which upstream serves the URI); before, the last recorded subscriber's unsubscribe (or session
 * end) meanwhile was forwarded, the upstream applied it after the other's subscribe, and the
 * agent told it was subscribed heard no update (found by a review). The fixture applies a
 * subscribe when it comes and answers 300 ms later. The other way round too: a subscribe waits
 * for an unsubscribe of its URI still on its way, which the server could apply after it.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { closeAllAggregators, connectAgent, startAggregator, until } from './aggregator-harness.js'

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
})
