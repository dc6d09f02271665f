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
import { HEARD_LISTING_MS, PendingListings } from '../../src/edge/pending-listings.js'

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

  it('forgets a start whose end never came', () => {
    const { a, b, advance } = twoNodes()
    a.add('tun_1', 'address 192.0.2.1') // its node dies before the end is told
    assert.equal(b.has('tun_1', 'address 192.0.2.1'), true)
    advance(HEARD_LISTING_MS - 1)
    assert.equal(b.has('tun_1', 'address 192.0.2.1'), true)
    advance(1)
    assert.equal(b.has('tun_1', 'address 192.0.2.1'), false)
    // A later start counts afresh, not on top of the forgotten one, and is swept with it.
    const done = a.add('tun_1', 'address 192.0.2.1')
    done()
    assert.equal(b.has('tun_1', 'address 192.0.2.1'), false)
    a.add('tun_2', undefined) // never ends either
    assert.equal(b.heardSize, 1)
    advance(HEARD_LISTING_MS + 10_000)
    a.add('tun_9', undefined)
    assert.equal(b.heardSize, 1, "tun_2's expired start is swept, tun_9's counted")
    assert.equal(b.has('tun_9', undefined), true)
  })

  it('ignores malformed listing events', async () => {
    const events = new LocalClusterEvents()
    const b = new PendingListings({ events, node: 'b' })
    for (const bad of [
      { type: 'listing', node: 'a', key: 7, open: true },
      { type: 'listing', node: 'a', key: 'k', open: 'yes' },
      { type: 'listing', node: 'a', open: true },
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
              if (e.type === 'listing' && e.open === open) resolve()
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
