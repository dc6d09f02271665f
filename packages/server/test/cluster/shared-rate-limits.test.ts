// Rate limits two nodes keep together over a real Redis: what one spends the other charges, give-
// backs travel too, each node ignores its own events, limits of other names are apart, and a key
// too long to send stays the node's own.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents, RedisClusterEvents } from '../../src/cluster/cluster-events.js'
import { SharedRateLimits } from '../../src/cluster/shared-rate-limits.js'
import type { RateLimiter } from '../../src/http/rate-limiter.js'

const url = process.env.TEST_REDIS_URL

describe('shared rate limits', { skip: url ? false : 'needs TEST_REDIS_URL' }, () => {
  let a: RedisClusterEvents
  let b: RedisClusterEvents
  let limitsA: SharedRateLimits
  let limitsB: SharedRateLimits
  /** Events of type `spent` node B has received. */
  let atB = 0
  /** Events of type `spent` node A has received from node B. */
  let atA = 0

  before(async () => {
    const prefix = `test:${randomUUID()}:`
    a = new RedisClusterEvents({ url: url!, node: 'a', log: silentLogger, keyPrefix: prefix })
    b = new RedisClusterEvents({ url: url!, node: 'b', log: silentLogger, keyPrefix: prefix })
    await Promise.all([a.ready(), b.ready()])
    limitsA = new SharedRateLimits({ events: a, node: 'a' })
    limitsB = new SharedRateLimits({ events: b, node: 'b' })
    b.subscribe((event) => {
      if (event.type === 'spent' && event.node === 'a') atB++
    })
    a.subscribe((event) => {
      if (event.type === 'spent' && event.node === 'b') atA++
    })
  })

  after(async () => {
    await Promise.all([a.close(), b.close()])
  })

  /** Wait until node B has received `count` of node A's spends. */
  const reachedB = async (count: number) => {
    for (let i = 0; i < 1000 && atB < count; i++) await new Promise((r) => setTimeout(r, 5))
    assert.equal(atB, count)
  }
  /** Wait until node A has received `count` of node B's spends. */
  const reachedA = async (count: number) => {
    for (let i = 0; i < 1000 && atA < count; i++) await new Promise((r) => setTimeout(r, 5))
    assert.equal(atA, count)
  }

  const pair = (name: string, capacity: number): [RateLimiter, RateLimiter] => [
    limitsA.limiter(name, { capacity, perMs: 3_600_000 }),
    limitsB.limiter(name, { capacity, perMs: 3_600_000 }),
  ]

  it('charges one node for what the other spent, so the two allow one limit', async () => {
    const [onA, onB] = pair('sign-in', 4)
    const other = pair('other', 4)
    const [seen, seenA] = [atB, atA]
    for (let i = 0; i < 3; i++) assert.equal(onA.take('ip:1').ok, true)
    await reachedB(seen + 3)
    assert.equal(onB.take('ip:1').ok, true)
    assert.equal(onB.take('ip:1').ok, false, 'node B is charged for node A’s three')
    // Another key, and a limit of another name, spend apart.
    assert.equal(onB.take('ip:2').ok, true)
    assert.equal(other[1].take('ip:1').ok, true)
    // Node A was charged for node B's spend in turn.
    for (let i = 0; i < 200 && onA.peek('ip:1').ok; i++) await new Promise((r) => setTimeout(r, 5))
    assert.equal(onA.take('ip:1').ok, false)
    // All three of node B's spends reached node A before the next test counts from here.
    await reachedA(seenA + 3)
  })

  it('passes give-backs on, and a node does not charge itself for its own spends', async () => {
    const [onA, onB] = pair('registrations', 2)
    const seen = atB
    assert.equal(onA.take('acc_1').ok, true)
    assert.equal(onA.take('acc_1').ok, true)
    onA.giveBack('acc_1')
    await reachedB(seen + 3)
    // A kept its own count: one back of two spent (its own event, delivered to it too, is ignored).
    assert.equal(onA.take('acc_1').ok, true)
    assert.equal(onA.take('acc_1').ok, false)
    // B: two charged, one given back.
    assert.equal(onB.take('acc_1').ok, true)
    assert.equal(onB.take('acc_1').ok, false)
    await reachedB(seen + 4)
  })

  it('a request refused on one node racing one allowed on the other spends one', async () => {
    // Both nodes take the last request before either hears of the other's; node A's request is
    // then refused and gives its request back (a custom domain another account holds).
    const [onA, onB] = pair('race-give-back', 1)
    const [seenA, seenB] = [atA, atB]
    assert.equal(onA.take('acc_1').ok, true)
    assert.equal(onB.take('acc_1').ok, true)
    onA.giveBack('acc_1')
    await reachedB(seenB + 2)
    await reachedA(seenA + 1)
    // One request was spent (node B's) of a limit of one: neither node allows another.
    assert.equal(onA.peek('acc_1').ok, false, 'node A allows a request never spent')
    assert.equal(onB.peek('acc_1').ok, false, 'node B allows a request never spent')
  })

  it('requests both nodes allowed at once are paid back before the next period', async () => {
    let clock = 0
    const now = () => clock
    const onA = limitsA.limiter('race-burst', { capacity: 2, perMs: 60_000, now })
    const onB = limitsB.limiter('race-burst', { capacity: 2, perMs: 60_000, now })
    const [seenA, seenB] = [atA, atB]
    // Four requests sent to two nodes at once, each allowed its bucket of two.
    for (let i = 0; i < 2; i++) {
      assert.equal(onA.take('ip:9').ok, true)
      assert.equal(onB.take('ip:9').ok, true)
    }
    await reachedB(seenB + 2)
    await reachedA(seenA + 2)
    // Four spent of a limit of two a minute: after a minute, the two over are still owed.
    clock += 60_000
    assert.equal(onA.peek('ip:9').ok, false, 'node A refilled as if two were spent')
    assert.equal(onB.peek('ip:9').ok, false, 'node B refilled as if two were spent')
    clock += 60_000
    assert.equal(onA.peek('ip:9').ok, true)
  })

  it('keeps a key too long to send to itself', async () => {
    const [onA, onB] = pair('long', 1)
    const key = 'k'.repeat(600)
    const seen = atB
    assert.equal(onA.take(key).ok, true)
    assert.equal(onA.take('short').ok, true)
    await reachedB(seen + 1)
    assert.equal(onB.take(key).ok, true)
    assert.equal(onB.take('short').ok, false)
  })

  it('refuses to make two limiters of one name', () => {
    const limits = new SharedRateLimits({ events: new LocalClusterEvents(), node: 'n' })
    limits.limiter('x', { capacity: 1, perMs: 1000 })
    assert.throws(() => limits.limiter('x', { capacity: 1, perMs: 1000 }), /made twice/)
  })
})
