import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { after, before, describe, it, mock } from 'node:test'
import { SLOW_LOOKUP_MS } from '../../src/webhooks/lookup-turns.js'
import {
  boundedResolve,
  LOOKUP_WAIT_MS,
  type LookupAll,
} from '../../src/webhooks/system-resolve.js'
import { startLoopbackDns, type LoopbackDns } from '../helpers/loopback-dns.js'

/** A resolver whose answers the test gives, one name at a time. */
function heldLookup() {
  const asked: string[] = []
  const pending = new Map<string, (error: Error | null, found: LookupAddress[]) => void>()
  const lookup: LookupAll = (hostname, _options, callback) => {
    asked.push(hostname)
    pending.set(hostname, callback)
  }
  const answer = (hostname: string, error: Error | null = null) => {
    pending.get(hostname)!(error, error ? [] : [{ address: '192.0.2.1', family: 4 }])
    pending.delete(hostname)
  }
  return { lookup, asked, answer }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('boundedResolve', () => {
  it('runs at most two lookups at once; the others wait their turn, in order', async () => {
    const held = heldLookup()
    const resolve = boundedResolve(held.lookup)
    const names = ['a.example', 'b.example', 'c.example', 'd.example']
    const results = names.map((name) => resolve(name))
    await turn()
    assert.deepEqual(held.asked, ['a.example', 'b.example'], 'two held names hold two places')
    held.answer('b.example')
    assert.deepEqual(await results[1], [{ address: '192.0.2.1', family: 4 }])
    assert.deepEqual(held.asked, ['a.example', 'b.example', 'c.example'])
    held.answer('c.example', new Error('ENOTFOUND'))
    await assert.rejects(results[2]!, /ENOTFOUND/)
    assert.deepEqual(held.asked, names, 'a failed lookup gives its place back too')
    held.answer('a.example')
    held.answer('d.example')
    await Promise.all([results[0], results[3]])
    const after = resolve('e.example')
    await turn()
    assert.equal(held.asked.at(-1), 'e.example', 'every place was given back')
    held.answer('e.example')
    await after
  })

  it('fails a lookup that waited too long for a place, and never runs it later', async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const held = heldLookup()
      const resolve = boundedResolve(held.lookup, 1)
      const first = resolve('never.example')
      const late = resolve('late.example').then(
        () => 'answered',
        (error: Error) => error.message,
      )
      mock.timers.tick(LOOKUP_WAIT_MS)
      const outcome = await Promise.race([late, turn().then(() => 'still waiting')])
      assert.match(outcome, /late\.example waited/, 'its caller is told at once')
      held.answer('never.example')
      await first
      assert.deepEqual(held.asked, ['never.example'], 'the given-up lookup is not run')
      const next = resolve('next.example')
      await turn()
      assert.deepEqual(held.asked, ['never.example', 'next.example'], 'its place was not kept')
      held.answer('next.example')
      await next
    } finally {
      mock.timers.reset()
    }
  })

  it('waits no longer than its caller for a place: its connection gave up by then (found by a hostile review)', async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const held = heldLookup()
      const resolve = boundedResolve(held.lookup, 1)
      const first = resolve('never.example')
      // A client document's connection gives up after 5 s, where the lookups' bound is 10 s.
      const late = resolve('late.example', undefined, undefined, 5_000).then(
        () => 'answered',
        (error: Error) => error.message,
      )
      mock.timers.tick(5_000)
      const outcome = await Promise.race([late, turn().then(() => 'still waiting')])
      assert.match(outcome, /late\.example waited 5000 ms/)
      held.answer('never.example')
      await first
      assert.deepEqual(held.asked, ['never.example'], 'the given-up lookup is not run')
    } finally {
      mock.timers.reset()
    }
  })
})

describe('boundedResolve with a resolver that throws (found by a review)', () => {
  it('fails that lookup, gives its place back and keeps the others going', async () => {
    const held = heldLookup()
    const lookup: LookupAll = (hostname, options, callback) => {
      if (hostname.startsWith('throws')) throw new Error(`resolver broke on ${hostname}`)
      held.lookup(hostname, options, callback)
    }
    const resolve = boundedResolve(lookup, 1)
    await assert.rejects(resolve('throws1.example'), /resolver broke on throws1/)
    const first = resolve('a.example')
    const second = resolve('throws2.example') // run from inside a.example's answer
    const third = resolve('b.example')
    await turn()
    assert.doesNotThrow(() => held.answer('a.example'), "not thrown into a.example's answer")
    await first
    await assert.rejects(second, /resolver broke on throws2/)
    await turn()
    assert.deepEqual(held.asked, ['a.example', 'b.example'], 'the queue kept going')
    held.answer('b.example')
    await third
  })
})

describe('boundedResolve when its callers stop', () => {
  const settled = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    )

  it('never runs a lookup still waiting for a place, and no longer waits for running ones (found by a review)', async () => {
    // A lookup waiting its turn when burrowd stopped ran afterwards, for nobody, once a place
    // came free (up to LOOKUP_WAIT_MS later), holding a pool thread while the process stopped.
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const held = heldLookup()
      const resolve = boundedResolve(held.lookup, 2)
      const stopping = new AbortController()
      const running = ['a.example', 'b.example'].map((name, i) =>
        settled(resolve(name, `account ${i}`, stopping.signal)),
      )
      // Many of many accounts queued behind them, asked at once and again.
      const queued = Array.from({ length: 100 }, (_, i) =>
        settled(resolve(`q${i}.example`, `account ${i % 7}`, stopping.signal)),
      )
      const others = settled(resolve('other.example', 'account other'))
      await turn()
      assert.deepEqual(held.asked, ['a.example', 'b.example'])
      stopping.abort()
      // Told at once, though the two running lookups have not ended: the stop returns.
      assert.deepEqual(await Promise.all([...running, ...queued]), Array(102).fill('ECANCELLED'))
      mock.timers.tick(LOOKUP_WAIT_MS - 1)
      held.answer('a.example')
      held.answer('b.example')
      await turn()
      assert.deepEqual(
        held.asked,
        ['a.example', 'b.example', 'other.example'],
        "no dropped lookup ran; another caller's took the place freed",
      )
      held.answer('other.example')
      assert.equal(await others, 'answered')
      assert.equal(
        await settled(resolve('late.example', 'account 0', stopping.signal)),
        'ECANCELLED',
        'asked after the stop: never queued',
      )
      assert.equal(held.asked.length, 3)
    } finally {
      mock.timers.reset()
    }
  })
})

describe("boundedResolve and libuv's pool", () => {
  it('does not put an account last for a wait every lookup shared (found by a review)', async () => {
    let clock = 0
    const held = heldLookup()
    const resolve = boundedResolve(held.lookup, 2, LOOKUP_WAIT_MS, () => clock)
    const waits: Promise<unknown>[] = []
    const ask = (name: string, who: string) => waits.push(resolve(name, who))
    // The pool was busy (files, crypto): both lookups took long, and both answered.
    ask('a1.example', 'account A')
    ask('b1.example', 'account B')
    await turn()
    clock += 3 * SLOW_LOOKUP_MS
    held.answer('a1.example')
    held.answer('b1.example')
    // Both places taken, then A and D wait: A asked first, and is not slow, so it goes first.
    ask('x1.example', 'account X')
    ask('x2.example', 'account Y')
    ask('a2.example', 'account A')
    ask('d1.example', 'account D')
    await turn()
    held.answer('x1.example')
    await turn()
    assert.equal(held.asked.at(-1), 'a2.example', 'A is not taken as slow')
    held.answer('a2.example')
    held.answer('x2.example')
    held.answer('d1.example')
    // E's name answers late while a lookup made after it answered at once: E's name was slow.
    ask('e1.example', 'account E')
    ask('f1.example', 'account F')
    await turn()
    held.answer('f1.example')
    clock += SLOW_LOOKUP_MS
    held.answer('e1.example')
    ask('x3.example', 'account X')
    ask('x4.example', 'account Y')
    ask('e2.example', 'account E')
    ask('d2.example', 'account D')
    await turn()
    held.answer('x3.example')
    await turn()
    assert.equal(held.asked.at(-1), 'd2.example', 'E, slow now, waits for D though asked first')
    held.answer('x4.example')
    await turn()
    assert.equal(held.asked.at(-1), 'e2.example')
    held.answer('e2.example')
    held.answer('d2.example')
    await Promise.all(waits)
  })
})

describe('boundedResolve through a nameserver that never answers some names', () => {
  // A real resolver asks a DNS server on 127.0.0.1 that swallows the queries of *.tarpit.test,
  // as the nameservers of names that never resolve do; its tries give up after 200 ms.
  let dns: LoopbackDns
  before(async () => {
    dns = await startLoopbackDns((name) => name.endsWith('.tarpit.test'))
  })
  after(() => dns.close())

  const settled = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    )

  it("does not let one account's names take turn after turn while another's wait (found by a hostile review)", async () => {
    const resolve = boundedResolve(dns.lookup(200))
    const started: string[] = []
    const asked = (name: string, who: string) => {
      started.push(name)
      return resolve(name, who)
    }
    const hostile = ['a1.tarpit.test', 'a2.tarpit.test', 'a3.tarpit.test'].map((name) =>
      settled(asked(name, 'account hostile')),
    )
    const victim = asked('hooks.victim.test', 'account victim')
    assert.deepEqual(await victim, [{ address: '127.0.0.1', family: 4 }])
    assert.deepEqual(await Promise.all(hostile), ['ETIMEOUT', 'ETIMEOUT', 'ETIMEOUT'])
    assert.deepEqual(
      dns.asked,
      ['a1.tarpit.test', 'a2.tarpit.test', 'hooks.victim.test', 'a3.tarpit.test'],
      "the victim's lookup went at the first free place, before the hostile account's third",
    )
    assert.equal(started.length, 4)
  })
})
