// Cluster events over a real Redis: what one node publishes, the others (and itself) receive once;
// and a node started while Redis cannot be reached waits for it instead of crashing (a review
// found that the subscription failed after one retry, unhandled, which ends the process).
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { freePort } from '../../../../test/helpers/free-port.js'
import {
  LocalClusterEvents,
  RedisClusterEvents,
  type ClusterEvent,
} from '../../src/cluster/cluster-events.js'

const url = process.env.TEST_REDIS_URL

describe('cluster events', () => {
  it('deliver in process without Redis', async () => {
    const events = new LocalClusterEvents()
    const got: ClusterEvent[] = []
    events.subscribe((e) => got.push(e))
    await events.publish({ type: 'account', accountId: 'acc_1' })
    assert.deepEqual(got, [{ type: 'account', accountId: 'acc_1' }])
  })

  it(
    'reach every node once through Redis',
    { skip: url ? false : 'needs TEST_REDIS_URL' },
    async () => {
      const prefix = `test:${randomUUID()}:`
      const a = new RedisClusterEvents({
        url: url!,
        node: 'a',
        log: silentLogger,
        keyPrefix: prefix,
      })
      const b = new RedisClusterEvents({
        url: url!,
        node: 'b',
        log: silentLogger,
        keyPrefix: prefix,
      })
      await Promise.all([a.ready(), b.ready()])
      const atA: ClusterEvent[] = []
      const atB: ClusterEvent[] = []
      a.subscribe((e) => atA.push(e))
      b.subscribe((e) => atB.push(e))
      const received = new Promise<void>((resolve) => b.subscribe(() => resolve()))
      await a.publish({ type: 'tunnel', tunnelId: 'tun_1' })
      await received
      await new Promise((r) => setTimeout(r, 50))
      assert.deepEqual(atA, [{ type: 'tunnel', tunnelId: 'tun_1' }])
      assert.deepEqual(atB, [{ type: 'tunnel', tunnelId: 'tun_1' }])
      await Promise.all([a.close(), b.close()])
    },
  )

  it('waits for a Redis it cannot reach yet instead of failing', async () => {
    const port = await freePort()
    const events = new RedisClusterEvents({
      url: `redis://127.0.0.1:${port}`,
      node: 'a',
      log: silentLogger,
    })
    // Past the retry after which a command of the other connections fails.
    await new Promise((r) => setTimeout(r, 1_500))
    let settled = false
    void events.ready().then(() => (settled = true))
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(settled, false, 'still waiting for Redis')
    await events.close()
  })
})
