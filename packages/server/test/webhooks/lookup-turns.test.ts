import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { LookupTurns, SLOW_FOR_MS, SLOW_LOOKUP_MS } from '../../src/webhooks/lookup-turns.js'

const timedOut = () => Object.assign(new Error('queryA ETIMEOUT'), { code: 'ETIMEOUT' })

/** Turns of `atOnce` places on a clock the test moves; `started` lists lookups given a place. */
function turnsOf(atOnce: number) {
  let clock = 0
  const turns = new LookupTurns(atOnce, () => clock)
  const started: string[] = []
  const ask = (who: string, name: string) => turns.ask(who, () => started.push(name))
  return { turns, started, ask, move: (ms: number) => (clock += ms) }
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

  it('takes a lookup that held its place SLOW_LOOKUP_MS as timed out, whatever it answered', () => {
    const { turns, ask } = turnsOf(1)
    ask('A', 'a1')
    turns.done('A', SLOW_LOOKUP_MS - 1, null)
    assert.equal(turns.isSlow('A'), false)
    ask('A', 'a2')
    turns.done('A', SLOW_LOOKUP_MS, null)
    assert.equal(turns.isSlow('A'), true)
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
})
