// The listings in flight per tunnel and session: counted, given back once each, and forgotten
// when none is left; with several nodes, told to the others (hashed) and counted there too.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import {
  LocalClusterEvents,
  RedisClusterEvents,
  type ClusterEvent,
} from '../../src/cluster/cluster-events.js'
import {
  HEARD_LISTING_MS,
  PendingListings,
  RETELL_LISTINGS_MS,
} from '../../src/edge/pending-listings.js'

const redisUrl = process.env.TEST_REDIS_URL

describe('PendingListings', () => {
  it('counts listings per tunnel and session until each is done, once', () => {
    const pending = new PendingListings()
    const first = pending.add('tun_1', 's1')
    const second = pending.add('tun_1', 's1')
    assert.equal(pending.has('tun_1', 's1'), true)
    assert.equal(pending.has('tun_1', 's2'), false)
    assert.equal(pending.has('tun_2', 's1'), false)
    first()
    first() // a second call gives nothing back twice
    assert.equal(pending.has('tun_1', 's1'), true)
    second()
    assert.equal(pending.has('tun_1', 's1'), false)
    assert.equal(pending.size, 0)
  })

  it('keeps requests without a session under their tunnel, apart from sessions', () => {
    const pending = new PendingListings()
    const done = pending.add('tun_1', undefined)
    assert.equal(pending.has('tun_1', undefined), true)
    assert.equal(pending.has('tun_1', ''), true, 'an empty session id is no session')
    assert.equal(pending.has('tun_1', 's1'), false)
    // A session id holding the separator cannot pass for another tunnel's key.
    assert.equal(pending.has('tun', '1\n'), false)
    done()
    assert.equal(pending.has('tun_1', undefined), false)
  })
})

describe('PendingListings shared between nodes', () => {
  /** Two nodes' listings over one in-process event bus, with a clock the test moves. */
  function twoNodes() {
    const events = new LocalClusterEvents()
    const sent: ClusterEvent[] = []
    events.subscribe((e) => sent.push(e))
    let clock = 1_000_000
    const now = () => clock
    return {
      a: new PendingListings({ events, node: 'a', now }),
      b: new PendingListings({ events, node: 'b', now }),
      sent,
      advance: (ms: number) => (clock += ms),
    }
  }

  it("counts another node's listing until it ends, and its own once", () => {
    const { a, b, sent } = twoNodes()
    const first = a.add('tun_1', 'session s1')
    const second = a.add('tun_1', 'session s1')
    assert.equal(b.has('tun_1', 'session s1'), true, 'heard on the other node')
    assert.equal(b.has('tun_1', 'session s2'), false)
    assert.equal(b.has('tun_2', 'session s1'), false)
    assert.equal(a.heardSize, 0, 'a node does not hear itself')
    first()
    first()
    assert.equal(b.has('tun_1', 'session s1'), true, 'one of two still in flight')
    second()
    assert.equal(b.has('tun_1', 'session s1'), false)
    assert.equal(b.heardSize, 0)
    // What travels names neither the session nor the tunnel.
    assert.equal(sent.length, 4)
    for (const e of sent) assert.doesNotMatch(JSON.stringify(e), /s1|tun_1/)
  })

  it('keeps a long listing counted while its node retells it, and forgets a dead node’s', () => {
    const { a, b, advance } = twoNodes()
    const scope = 'address 192.0.2.1'
    const done = a.add('tun_1', scope)
    // A server holding the listing past a minute: its node retells it, the other keeps counting.
    for (let t = 0; t < 3; t++) {
      advance(RETELL_LISTINGS_MS)
      a.retell()
      assert.equal(b.has('tun_1', scope), true, `after ${(t + 1) * RETELL_LISTINGS_MS} ms`)
    }
    done()
    assert.equal(b.has('tun_1', scope), false)
    // A node that dies with a listing in flight tells no end: forgotten after HEARD_LISTING_MS.
    a.add('tun_1', scope)
    advance(HEARD_LISTING_MS - 1)
    assert.equal(b.has('tun_1', scope), true)
    advance(1)
    assert.equal(b.has('tun_1', scope), false)
    // Another node's count is its own: a third node's listing of the same scope is not ended by
    // the first one's end.
    const events = new LocalClusterEvents()
    let clock = 0
    const [x, y, z] = ['x', 'y', 'z'].map(
      (node) => new PendingListings({ events, node, now: () => clock }),
    ) as [PendingListings, PendingListings, PendingListings]
    const onX = x.add('tun_1', scope)
    y.add('tun_1', scope)
    onX()
    assert.equal(z.has('tun_1', scope), true, "y's listing still counts")
    // Swept once expired.
    clock += HEARD_LISTING_MS + 10_000
    x.add('tun_9', undefined)
    assert.equal(z.heardSize, 1, "y's expired count is swept, x's new one counted")
  })

  it('ignores malformed listing events', async () => {
    const events = new LocalClusterEvents()
    const b = new PendingListings({ events, node: 'b' })
    for (const bad of [
      { type: 'listing', node: 'a', key: 7, count: 1 },
      { type: 'listing', node: 'a', key: 'k', count: 'yes' },
      { type: 'listing', node: 'a', key: 'k', count: -1 },
      { type: 'listing', node: 'a', key: 'k', count: 1.5 },
      { type: 'listing', node: 7, key: 'k', count: 1 },
      { type: 'listing', node: 'a', count: 1 },
    ]) {
      await events.publish(bad as unknown as ClusterEvent)
    }
    assert.equal(b.heardSize, 0)
  })

  it(
    'reach the other node through Redis',
    { skip: redisUrl ? false : 'needs TEST_REDIS_URL' },
    async () => {
      const prefix = `test:${randomUUID()}:`
      const busA = new RedisClusterEvents({
        url: redisUrl!,
        node: 'a',
        log: silentLogger,
        keyPrefix: prefix,
      })
      const busB = new RedisClusterEvents({
        url: redisUrl!,
        node: 'b',
        log: silentLogger,
        keyPrefix: prefix,
      })
      try {
        await Promise.all([busA.ready(), busB.ready()])
        const a = new PendingListings({ events: busA, node: 'a' })
        const b = new PendingListings({ events: busB, node: 'b' })
        const heard = (open: boolean) =>
          new Promise<void>((resolve) =>
            busB.subscribe((e) => {
              if (e.type === 'listing' && e.count > 0 === open) resolve()
            }),
          )
        const started = heard(true)
        const done = a.add('tun_1', 'session s1')
        await started
        assert.equal(b.has('tun_1', 'session s1'), true)
        const ended = heard(false)
        done()
        await ended
        assert.equal(b.has('tun_1', 'session s1'), false)
      } finally {
        await Promise.all([busA.close(), busB.close()])
      }
    },
  )
})
