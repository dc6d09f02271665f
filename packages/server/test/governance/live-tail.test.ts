/**
 * The live tail: watchers get their tunnel's calls as they are recorded, and no other tunnel's; a
 * watcher with a full queue loses calls and is then told exactly how many, without slowing the
 * others; at most `MAX_WATCHERS` per tunnel; and stopping a watch, even twice, ends only that one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LiveTail, MAX_WATCHERS, type TailEvent } from '../../src/governance/live-tail.js'
import type { CallRecord } from '../../src/quota/call-history.js'

const call = (tunnelId: string, n: number): CallRecord => ({
  id: `call_${n}`,
  tunnelId,
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  method: 'tools/call',
  tool: 'search',
  status: 200,
  policyCode: null,
  durationMs: n,
})

/** A watcher with a queue of `capacity` events, as a page's stream buffer would be. */
class QueueWatcher {
  readonly queue: TailEvent[] = []
  /** Everything taken off the queue so far. */
  readonly seen: TailEvent[] = []
  /** Events the queue holds at most (a test may change it). */
  capacity: number

  constructor(capacity = Infinity) {
    this.capacity = capacity
  }

  send(event: TailEvent): boolean {
    if (this.queue.length >= this.capacity) return false
    this.queue.push(event)
    return true
  }

  drain(): void {
    this.seen.push(...this.queue.splice(0))
  }

  /** Ids of the calls received, in order. */
  get calls(): string[] {
    return [...this.seen, ...this.queue].flatMap((e) => (e.type === 'call' ? [e.call.id!] : []))
  }

  /** The dropped counts reported, in order. */
  get dropped(): number[] {
    return [...this.seen, ...this.queue].flatMap((e) => (e.type === 'dropped' ? [e.count] : []))
  }
}

describe('live tail', () => {
  it('hands each call to every watcher of its tunnel, and to no other', () => {
    const tail = new LiveTail()
    const a1 = new QueueWatcher()
    const a2 = new QueueWatcher()
    const b = new QueueWatcher()
    assert.ok(tail.watch('tun_a', a1))
    assert.ok(tail.watch('tun_a', a2))
    assert.ok(tail.watch('tun_b', b))
    tail.publish(call('tun_a', 1))
    tail.publish(call('tun_b', 2))
    tail.publish(call('tun_c', 3))
    tail.publish(call('tun_a', 4))
    assert.deepEqual(a1.calls, ['call_1', 'call_4'])
    assert.deepEqual(a2.calls, ['call_1', 'call_4'])
    assert.deepEqual(b.calls, ['call_2'])
    assert.deepEqual(a1.queue[0], { type: 'call', call: call('tun_a', 1) })
  })

  it('tells a watcher that fell behind how many calls it lost, then goes on', () => {
    const tail = new LiveTail()
    const slow = new QueueWatcher(3)
    const fast = new QueueWatcher()
    tail.watch('tun_a', slow)
    tail.watch('tun_a', fast)
    for (let n = 1; n <= 10; n++) tail.publish(call('tun_a', n))
    assert.deepEqual(slow.calls, ['call_1', 'call_2', 'call_3'])
    assert.equal(fast.calls.length, 10, 'a slow watcher does not hold the others back')
    slow.drain()
    tail.publish(call('tun_a', 11))
    assert.deepEqual(slow.queue, [
      { type: 'dropped', count: 7 },
      { type: 'call', call: call('tun_a', 11) },
    ])
    slow.drain()
    tail.publish(call('tun_a', 12))
    assert.deepEqual(slow.queue, [{ type: 'call', call: call('tun_a', 12) }], 'told once')
  })

  it('counts the call it could not send after the notice, and a notice it could not send', () => {
    const tail = new LiveTail()
    const w = new QueueWatcher(1)
    tail.watch('tun_a', w)
    tail.publish(call('tun_a', 1))
    tail.publish(call('tun_a', 2)) // lost: 1
    w.drain()
    tail.publish(call('tun_a', 3)) // the notice fits, the call does not: 1 lost again
    assert.deepEqual(w.queue, [{ type: 'dropped', count: 1 }])
    tail.publish(call('tun_a', 4)) // not even the notice fits: 2 lost
    w.drain()
    w.capacity = 2
    tail.publish(call('tun_a', 5))
    assert.deepEqual(w.queue, [
      { type: 'dropped', count: 2 },
      { type: 'call', call: call('tun_a', 5) },
    ])
    assert.deepEqual(w.calls, ['call_1', 'call_5'])
    assert.deepEqual(w.dropped, [1, 2])
  })

  it('accounts for every call, received or reported lost, however the queue drains', () => {
    const tail = new LiveTail()
    const watchers = [2, 3, 5, 16].map((capacity) => new QueueWatcher(capacity))
    for (const w of watchers) tail.watch('tun_a', w)
    let seed = 7
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    const published = 2000
    for (let n = 1; n <= published; n++) {
      tail.publish(call('tun_a', n))
      for (const w of watchers) if (random() < 0.2) w.drain()
    }
    for (const w of watchers) w.drain()
    // One more call delivers the last notice, if any is owed, and fits after it.
    tail.publish(call('tun_a', published + 1))
    for (const w of watchers) {
      const ids = w.calls.map((id) => Number(id.slice(5)))
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
        'calls arrive in order',
      )
      const lost = w.dropped.reduce((sum, n) => sum + n, 0)
      assert.equal(ids.length + lost, published + 1, `a queue of ${w.capacity}`)
    }
  })

  it(`takes at most ${MAX_WATCHERS} watchers per tunnel, freeing a place when one stops`, () => {
    const tail = new LiveTail()
    const stops = Array.from({ length: MAX_WATCHERS }, () =>
      tail.watch('tun_a', new QueueWatcher()),
    )
    assert.ok(stops.every((s) => s !== null))
    assert.equal(tail.watchers('tun_a'), MAX_WATCHERS)
    const refused = new QueueWatcher()
    assert.equal(tail.watch('tun_a', refused), null)
    assert.ok(tail.watch('tun_b', new QueueWatcher()), 'the cap is per tunnel')
    tail.publish(call('tun_a', 1))
    assert.deepEqual(refused.calls, [], 'a refused watcher gets nothing')
    stops[0]!()
    assert.equal(tail.watchers('tun_a'), MAX_WATCHERS - 1)
    assert.ok(tail.watch('tun_a', refused))
    tail.publish(call('tun_a', 2))
    assert.deepEqual(refused.calls, ['call_2'])
  })

  it('stops a watch for good, and stopping it again ends no other page’s watch', () => {
    const tail = new LiveTail()
    const first = new QueueWatcher()
    const stopFirst = tail.watch('tun_a', first)!
    stopFirst()
    assert.equal(tail.watchers('tun_a'), 0)
    tail.publish(call('tun_a', 1))
    assert.deepEqual(first.calls, [])

    const second = new QueueWatcher()
    assert.ok(tail.watch('tun_a', second))
    stopFirst()
    assert.equal(tail.watchers('tun_a'), 1)
    tail.publish(call('tun_a', 2))
    assert.deepEqual(second.calls, ['call_2'])
  })

  it('does not let repeated watches and stops of one tunnel leak places', () => {
    const tail = new LiveTail()
    for (let i = 0; i < 1000; i++) {
      const stop = tail.watch('tun_a', new QueueWatcher())
      assert.ok(stop, `watch ${i} refused`)
      stop()
      stop()
    }
    assert.equal(tail.watchers('tun_a'), 0)
    const stops = Array.from({ length: MAX_WATCHERS }, () =>
      tail.watch('tun_a', new QueueWatcher()),
    )
    assert.ok(stops.every((s) => s !== null))
  })

  it('hands out calls with bodies once the policy is read, in order, and none when unread', async () => {
    const reads: ((shown: boolean) => void)[] = []
    const failed: (() => void)[] = []
    const tail = new LiveTail(
      () =>
        new Promise<boolean>((resolve, reject) => {
          reads.push(resolve)
          failed.push(() => reject(new Error('simulated: the database went away')))
        }),
    )
    const w = new QueueWatcher()
    tail.watch('tun_a', w)
    const withBody = (n: number) => ({ ...call('tun_a', n), requestBody: `{"n":${n}}` })
    tail.publish(withBody(1))
    tail.publish(call('tun_a', 2)) // no body, but after one that waits
    tail.publish(withBody(3))
    assert.deepEqual(w.calls, [])
    assert.equal(reads.length, 1, 'one read at a time')
    reads[0]!(true)
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(w.calls, ['call_1'])
    assert.equal(reads.length, 2, 'calls recorded during a read wait for one begun after them')
    failed[1]!()
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(w.calls, ['call_1', 'call_2', 'call_3'])
    const bodies = w.queue.map((e) => (e.type === 'call' ? (e.call.requestBody ?? null) : null))
    assert.deepEqual(bodies, ['{"n":1}', null, null], 'a policy not read shows no body')
    tail.publish(call('tun_a', 4))
    assert.deepEqual(
      w.calls.at(-1),
      'call_4',
      'nothing waiting: a call without bodies goes at once',
    )
  })
})
