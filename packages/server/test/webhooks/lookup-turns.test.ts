import assert from 'node:assert/strict'
import { describe, it, mock } from 'node:test'
import {
  LookupTurns,
  SLOW_FOR_MS,
  SLOW_LOOKUP_MS,
  SLOW_REMEMBERED,
} from '../../src/webhooks/lookup-turns.js'

const timedOut = () => Object.assign(new Error('queryA ETIMEOUT'), { code: 'ETIMEOUT' })

/** Turns of `atOnce` places on a clock the test moves; `started` lists lookups given a place. */
function turnsOf(atOnce: number) {
  let clock = 0
  const turns = new LookupTurns(atOnce, () => clock)
  const started: string[] = []
  const ask = (who: string, name: string) => turns.ask(who, () => started.push(name))
  return { turns, started, ask, move: (ms: number) => (clock += ms), now: () => clock }
}

describe('LookupTurns', () => {
  it('serves those waiting in turn, not first come first (found by a hostile review)', () => {
    // First come first served let one account asking in a row take the places turn after turn.
    const { turns, started, ask } = turnsOf(2)
    ask('A', 'a1')
    ask('B', 'b1')
    ask('A', 'a2')
    ask('A', 'a3')
    ask('B', 'b2')
    ask('C', 'c1')
    assert.deepEqual(started, ['a1', 'b1'])
    turns.done('A', 0, null)
    turns.done('B', 0, null)
    turns.done('A', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'b2', 'c1'], 'A waits for its next turn')
    turns.done('C', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'b2', 'c1', 'a3'])
  })

  it('gives nobody a second place while another waits for a first', () => {
    const { turns, started, ask } = turnsOf(2)
    ask('A', 'a1')
    ask('B', 'b1')
    ask('A', 'a2') // asked first, but A holds a place
    ask('C', 'c1')
    turns.done('B', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'c1'])
    turns.done('C', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'c1', 'a2'], 'nobody else waits: A gets a second')
  })

  it('serves one whose lookup timed out last, one place at most, for SLOW_FOR_MS', () => {
    const { turns, started, ask, move } = turnsOf(2)
    ask('A', 'a1')
    turns.done('A', 0, timedOut())
    assert.equal(turns.isSlow('A'), true)
    ask('B', 'b1')
    ask('A', 'a2')
    ask('A', 'a3')
    ask('D', 'd1')
    ask('D', 'd2')
    assert.deepEqual(started, ['a1', 'b1', 'a2'], 'a free place is still used')
    turns.done('B', 0, null)
    turns.done('A', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'd1', 'd2'], 'D came later but goes first')
    turns.done('D', 0, null)
    assert.deepEqual(started, ['a1', 'b1', 'a2', 'd1', 'd2', 'a3'])
    ask('A', 'a4')
    assert.equal(started.length, 6, 'a slow one holds one place at most')
    turns.done('D', 0, null)
    turns.done('A', 0, null)
    assert.equal(started.at(-1), 'a4')
    move(SLOW_FOR_MS)
    assert.equal(turns.isSlow('A'), false, 'slow for a while only')
  })

  it('takes an answer after SLOW_LOOKUP_MS of its own as timed out, whatever it answered', () => {
    // B's lookup, made after A's, ended SLOW_LOOKUP_MS before A's: the pool (which takes
    // lookups in the order they are made) was not what A's waited for, its names were.
    const { turns, ask, move, now } = turnsOf(2)
    ask('A', 'a1')
    ask('B', 'b1')
    move(100)
    turns.done('B', 0, null)
    move(SLOW_LOOKUP_MS - 1)
    turns.done('A', 0, null)
    assert.equal(turns.isSlow('A'), false, 'not SLOW_LOOKUP_MS after the later one ended')
    const at = now()
    ask('E', 'e1')
    ask('C', 'c1')
    move(100)
    turns.done('C', at, null)
    move(SLOW_LOOKUP_MS)
    turns.done('E', at, null)
    assert.equal(turns.isSlow('E'), true, 'its first slow answer: the proof was there')
  })

  it("does not take a wait for libuv's pool as the asker's slowness (found by a review)", () => {
    // Files and crypto share the pool: a lookup may wait there, and every lookup with it.
    const { turns, ask, move, now } = turnsOf(2)
    ask('A', 'a1')
    ask('B', 'b1')
    move(3 * SLOW_LOOKUP_MS)
    turns.done('B', 0, null)
    turns.done('A', 0, null)
    assert.equal(turns.isSlow('A'), false, 'everything was slow: nothing says it was A')
    assert.equal(turns.isSlow('B'), false)
    // Two of C's at once wait for the same pool: one wait, not two slow answers in a row.
    let at = now()
    ask('C', 'c1')
    ask('C', 'c2')
    move(3 * SLOW_LOOKUP_MS)
    turns.done('C', at, null)
    turns.done('C', at, null)
    assert.equal(turns.isSlow('C'), false)
    // A quick answer between two slow ones: not in a row either.
    at = now()
    ask('C', 'c3')
    move(1)
    turns.done('C', at, null)
    at = now()
    ask('C', 'c4')
    move(SLOW_LOOKUP_MS)
    turns.done('C', at, null)
    assert.equal(turns.isSlow('C'), false)
    // Two slow answers in a row, the second begun after the first ended: C's names.
    at = now()
    ask('C', 'c5')
    move(SLOW_LOOKUP_MS)
    turns.done('C', at, null)
    assert.equal(turns.isSlow('C'), true)
  })

  it('forgets a slow answer SLOW_FOR_MS old: the next is the first in a row again', () => {
    const { turns, ask, move } = turnsOf(1)
    let at = 0
    ask('A', 'a1')
    move(SLOW_LOOKUP_MS)
    turns.done('A', at, null)
    move(SLOW_FOR_MS)
    at += SLOW_LOOKUP_MS + SLOW_FOR_MS
    ask('A', 'a2')
    move(SLOW_LOOKUP_MS)
    turns.done('A', at, null)
    assert.equal(turns.isSlow('A'), false)
    at += SLOW_LOOKUP_MS
    ask('A', 'a3')
    move(SLOW_LOOKUP_MS)
    turns.done('A', at, null)
    assert.equal(turns.isSlow('A'), true)
  })

  it('remembers a bounded number of slow answers and of ended lookups', () => {
    const { turns, ask, move } = turnsOf(1)
    let at = 0
    for (let i = 0; i <= 10_000; i++) {
      ask(`S${i}`, `s${i}`)
      move(SLOW_LOOKUP_MS)
      turns.done(`S${i}`, at, null)
      at += SLOW_LOOKUP_MS
    }
    const second = (who: string) => {
      ask(who, who)
      move(SLOW_LOOKUP_MS)
      turns.done(who, at, null)
      at += SLOW_LOOKUP_MS
      return turns.isSlow(who)
    }
    assert.equal(second('S0'), false, "the oldest one's slow answer is forgotten")
    assert.equal(second('S10000'), true)
  })

  it('forgets a lookup that left the queue, and remembers a bounded number of slow askers', () => {
    const { turns, started, ask } = turnsOf(1)
    ask('A', 'a1')
    const leave = ask('B', 'b1')
    ask('C', 'c1')
    leave()
    leave()
    turns.done('A', 0, null)
    assert.deepEqual(started, ['a1', 'c1'])
    turns.done('C', 0, null)
    // Sign-ups are free: a flood of slow askers cannot grow the memory of them without end.
    for (let i = 0; i <= 10_000; i++) {
      ask(`S${i}`, `s${i}`)
      turns.done(`S${i}`, 0, timedOut())
    }
    assert.equal(turns.isSlow('S0'), false, 'the oldest mark is dropped')
    assert.equal(turns.isSlow('S10000'), true)
  })

  it('starts a waiting lookup when its asker stops being slow next to a free place (found by a review)', () => {
    // Nothing else ends or asks: only the slow mark's expiry can make a2 eligible.
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const { turns, started, ask, move } = turnsOf(2)
      ask('A', 'a0')
      turns.done('A', 0, timedOut())
      ask('A', 'a1')
      ask('A', 'a2')
      assert.deepEqual(started, ['a0', 'a1'], 'slow: one place at most')
      move(SLOW_FOR_MS - 1)
      mock.timers.tick(SLOW_FOR_MS - 1)
      assert.deepEqual(started, ['a0', 'a1'], 'still slow')
      move(1)
      mock.timers.tick(1)
      assert.deepEqual(started, ['a0', 'a1', 'a2'], 'no longer slow: the free place is used')
      turns.done('A', 0, null)
      turns.done('A', 0, null)
    } finally {
      mock.timers.reset()
    }
  })

  it('gives back the place of a lookup that throws and keeps serving (found by a review)', () => {
    const { turns, started, ask } = turnsOf(1)
    ask('A', 'a1')
    turns.ask('B', () => {
      throw new Error('resolver broke')
    })
    ask('C', 'c1')
    assert.doesNotThrow(() => turns.done('A', 0, null), 'not thrown into the ended lookup')
    assert.deepEqual(started, ['a1', 'c1'], "the thrower's place went to the next in turn")
    turns.done('C', 0, null)
    ask('D', 'd1')
    assert.deepEqual(started, ['a1', 'c1', 'd1'], 'every place was given back')
    assert.doesNotThrow(() =>
      turns.ask('E', () => {
        throw new Error('resolver broke')
      }),
    )
  })

  it('keeps thousands of distinct askers bounded in memory', () => {
    const { turns, ask, move } = turnsOf(2)
    for (let i = 0; i < 3 * SLOW_REMEMBERED; i++) {
      ask(`host${i}.example`, `h${i}`)
      move(SLOW_LOOKUP_MS)
      turns.done(`host${i}.example`, 0, i % 2 === 0 ? timedOut() : null)
    }
    assert.ok(turns.remembered() <= 2 * SLOW_REMEMBERED, `${turns.remembered()} remembered`)
  })
})
