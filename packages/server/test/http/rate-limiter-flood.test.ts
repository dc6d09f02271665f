/**
 * The limiter under a flood of distinct keys past its `maxKeys` (many IPv6 /64s, invented
 * emails), on an injected clock: a bucket not yet refilled is never forgotten, so no flood gives
 * a key back what it spent (found by a hostile review: the least recently used buckets were
 * forgotten, spent or not, and their keys started full again); keys without a place share one
 * overflow bucket, so the flood is throttled as a group; the buckets kept, spends other nodes
 * report included, never pass the cap; refilled buckets make room again.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { networkOfRateKey } from '../../src/http/client-addresses.js'
import { DEFAULT_MAX_KEYS, RateLimiter } from '../../src/http/rate-limiter.js'

const CAPACITY = 5
const PER_MS = 60_000
const CAP = 100

describe('RateLimiter flooded past maxKeys', () => {
  const limiter = (now: () => number, onSpend?: (key: string, delta: 1 | -1) => void) =>
    new RateLimiter({
      capacity: CAPACITY,
      perMs: PER_MS,
      maxKeys: CAP,
      now,
      ...(onSpend ? { onSpend } : {}),
    })
  /** `count` distinct keys (a stranger's /64s), each spending one request. */
  const flood = (rl: RateLimiter, count: number, prefix = 'flood') => {
    let allowed = 0
    for (let i = 0; i < count; i++) if (rl.take(`${prefix}:${i}`).ok) allowed++
    return allowed
  }

  it('never gives a spent key its allowance back, whatever the keys after it', () => {
    let clock = 0
    const rl = limiter(() => clock)
    for (let i = 0; i < CAPACITY; i++) assert.equal(rl.take('victim').ok, true)
    assert.equal(rl.take('attacker').ok, true)
    assert.equal(rl.take('attacker').ok, true)
    rl.charge('owing', 1)
    for (let i = 0; i < CAPACITY + 2; i++) rl.charge('owing', 1)
    // Ten thousand other keys, a hundred times the places, each spending one.
    flood(rl, 10_000)
    clock += 1_000
    flood(rl, 10_000, 'more')
    assert.equal(rl.take('victim').ok, false, 'the victim’s spent bucket was forgotten')
    assert.equal(rl.peek('victim').ok, false)
    for (let i = 0; i < CAPACITY - 2; i++) assert.equal(rl.take('attacker').ok, true)
    assert.equal(rl.take('attacker').ok, false, 'the attacker’s own bucket started full again')
    assert.equal(rl.peek('owing').ok, false, 'a bucket in debt was forgotten')
    // Each refills at its own pace: one request every perMs / capacity.
    clock += PER_MS / CAPACITY
    assert.equal(rl.take('victim').ok, true)
    assert.equal(rl.take('victim').ok, false)
    // Three past empty: four requests' refill before the owing key is allowed one.
    clock = (4 * PER_MS) / CAPACITY - 1
    assert.equal(rl.peek('owing').ok, false)
    clock += 1
    assert.equal(rl.peek('owing').ok, true)
  })

  it('keeps at most maxKeys buckets, however keys arrive (spends, peeks, give-backs, charges)', () => {
    let clock = 0
    const rl = limiter(() => clock)
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 2_000; i++) {
        const key = `r${round}:${i}`
        rl.take(key)
        rl.peek(`peek:${key}`)
        rl.giveBack(`back:${key}`)
        rl.charge(`remote:${key}`, 1)
        rl.charge(`remote-back:${key}`, -1)
        assert.ok(rl.size <= CAP, `${rl.size} buckets`)
      }
      clock += 7_000
    }
    assert.equal(rl.size, CAP)
  })

  it('throttles keys without a place as a group: one bucket of the capacity, refilled', () => {
    let clock = 0
    const told: [string, number][] = []
    const rl = limiter(
      () => clock,
      (key, delta) => told.push([key, delta]),
    )
    flood(rl, CAP)
    assert.equal(rl.size, CAP)
    // Every place holds a bucket not yet refilled: newcomers share one of CAPACITY requests.
    assert.equal(flood(rl, 50, 'late'), CAPACITY)
    assert.equal(rl.size, CAP)
    const refused = rl.take('newcomer')
    assert.deepEqual(refused, { ok: false, retryAfterSecs: PER_MS / CAPACITY / 1000 })
    assert.deepEqual(rl.peek('newcomer'), refused)
    // A give-back of a key without a place goes to the shared bucket its spend came from.
    rl.giveBack('late:0')
    assert.deepEqual(told.at(-1), ['late:0', -1])
    assert.equal(rl.peek('newcomer').ok, true)
    assert.equal(rl.take('newcomer').ok, true)
    assert.equal(rl.take('newcomer').ok, false)
    // Spends other nodes report for keys without a place are not counted against newcomers here.
    clock += PER_MS / CAPACITY
    for (let i = 0; i < 1_000; i++) rl.charge(`remote:${i}`, 1)
    assert.equal(rl.take('newcomer').ok, true, 'other nodes’ spends emptied the shared bucket')
    // Once the flood's buckets refill, new keys get places of their own again.
    clock += PER_MS
    for (const key of ['n1', 'n2', 'n3']) {
      for (let i = 0; i < CAPACITY; i++) assert.equal(rl.take(key).ok, true, `${key} ${i}`)
      assert.equal(rl.take(key).ok, false)
    }
    assert.ok(rl.size <= CAP)
  })

  it('finds a refilled bucket behind others that are not, a few buckets per request', () => {
    let clock = 0
    const rl = limiter(() => clock)
    // The least recently used half spent all, the newer half one request each.
    for (let i = 0; i < CAP / 2; i++) for (let j = 0; j < CAPACITY; j++) rl.take(`deep:${i}`)
    for (let i = 0; i < CAP / 2; i++) rl.take(`light:${i}`)
    // The newer half has refilled; the older half not.
    clock += PER_MS / CAPACITY
    const allowed = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((key) => {
      let ok = 0
      for (let i = 0; i < CAPACITY + 1; i++) if (rl.take(key).ok) ok++
      return ok
    })
    // The first newcomers' requests draw on the overflow bucket while the look is still among
    // the spent half; from then on, each newcomer has a place of its own.
    assert.ok(allowed[0]! + allowed[1]! >= CAPACITY, allowed.join())
    assert.deepEqual(allowed.slice(2), Array<number>(8).fill(CAPACITY))
    // The spent half kept what it spent: one request refilled each.
    for (let i = 0; i < CAP / 2; i++) {
      assert.equal(rl.take(`deep:${i}`).ok, true)
      assert.equal(rl.take(`deep:${i}`).ok, false, `deep:${i} started full again`)
    }
  })

  it('with overflow groups, throttles a network’s flood without holding other networks back', () => {
    const rl = new RateLimiter({
      capacity: CAPACITY,
      perMs: PER_MS,
      maxKeys: CAP,
      now: () => 0,
      overflowGroup: networkOfRateKey,
    })
    // One stranger's /48: far more /64s than places.
    const mine = (i: number) => `2001:db8:5:${i.toString(16)}::/64`
    let allowed = 0
    for (let i = 0; i < 10_000; i++) if (rl.take(mine(i)).ok) allowed++
    assert.equal(allowed, CAP + CAPACITY, 'the places, then one allowance for the whole /48')
    assert.equal(rl.size, CAP)
    assert.equal(rl.take(mine(20_000)).ok, false)
    assert.equal(rl.peek(mine(20_001)).ok, false)
    // A newcomer from another network has its network's whole allowance, and gives back to it.
    for (let i = 0; i < CAPACITY; i++) assert.equal(rl.take('2001:db8:6:1::/64').ok, true)
    assert.equal(rl.take('2001:db8:6:2::/64').ok, false, 'its /48 shares one allowance')
    rl.giveBack('2001:db8:6:1::/64')
    assert.equal(rl.take('2001:db8:6:3::/64').ok, true)
    assert.equal(rl.peek('203.0.113.7').ok, true)
    assert.equal(rl.take('203.0.113.7').ok, true)
    // Networks are kept as keys are: one request from each of a thousand /48s is allowed for
    // the networks given the places left, then the rest share one allowance.
    allowed = 0
    for (let i = 0; i < 1_000; i++) {
      if (rl.take(`2001:db8:${(i + 100).toString(16)}:1::/64`).ok) allowed++
    }
    assert.equal(allowed, CAP - 3 + CAPACITY)
    // The spent /64s and networks keep what they spent.
    assert.equal(rl.take(mine(0)).ok, true)
    for (let i = 0; i < CAPACITY - 2; i++) assert.equal(rl.take(mine(0)).ok, true)
    assert.equal(rl.take(mine(0)).ok, false)
  })

  it('costs a bounded look per newcomer, not a scan of every bucket', () => {
    const rl = new RateLimiter({
      capacity: 5,
      perMs: PER_MS,
      maxKeys: DEFAULT_MAX_KEYS,
      now: () => 0,
    })
    for (let i = 0; i < DEFAULT_MAX_KEYS; i++) rl.take(`spent:${i}`)
    const started = performance.now()
    for (let i = 0; i < DEFAULT_MAX_KEYS; i++) rl.take(`newcomer:${i}`)
    const ms = performance.now() - started
    assert.equal(rl.size, DEFAULT_MAX_KEYS)
    // A few tens of milliseconds; a scan of every bucket per newcomer took half a minute.
    assert.ok(ms < 5_000, `${Math.round(ms)} ms`)
  })
})
