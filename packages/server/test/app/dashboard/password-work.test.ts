import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PasswordWork } from '../../../src/app/dashboard/password-work.js'

/** Work that ends when the test says so. */
function held(): { promise: Promise<string>; finish: (value: string) => void } {
  let finish: (value: string) => void = () => {}
  const promise = new Promise<string>((resolve) => (finish = resolve))
  return { promise, finish }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('PasswordWork', () => {
  it('runs at most atOnce, then queues, then refuses what its lane cannot hold', async () => {
    const gate = new PasswordWork({ atOnce: 1, knownWaiting: 1, othersWaiting: 1 })
    const first = held()
    const running = gate.run('other', () => first.promise)
    const waiting = gate.run('other', async () => 'second')
    assert.equal(await gate.run('other', async () => 'third'), null, 'the lane is full')
    assert.deepEqual(gate.load, { running: 1, known: 0, other: 1 })
    first.finish('first')
    assert.deepEqual(await running, { value: 'first' })
    assert.deepEqual(await waiting, { value: 'second' })
    assert.deepEqual(gate.load, { running: 0, known: 0, other: 0 })
  })

  it('serves known browsers before others that waited longer', async () => {
    const gate = new PasswordWork({ atOnce: 1 })
    const first = held()
    const order: string[] = []
    const running = gate.run('other', () => first.promise)
    const others = [1, 2, 3].map((n) =>
      gate.run('other', async () => void order.push(`other ${n}`)),
    )
    const known = gate.run('known', async () => void order.push('known'))
    await turn()
    first.finish('done')
    await Promise.all([running, ...others, known])
    assert.deepEqual(order, ['known', 'other 1', 'other 2', 'other 3'])
  })

  it('gives the place back when the work throws', async () => {
    const gate = new PasswordWork({ atOnce: 1, othersWaiting: 0 })
    await assert.rejects(
      gate.run('other', () => Promise.reject(new Error('boom'))),
      /boom/,
    )
    assert.deepEqual(await gate.run('other', async () => 'next'), { value: 'next' })
  })

  it("a full lane of others leaves the known browsers' places free", async () => {
    const gate = new PasswordWork({ atOnce: 1, knownWaiting: 1, othersWaiting: 1 })
    const first = held()
    const running = gate.run('other', () => first.promise)
    const other = gate.run('other', async () => 'other')
    assert.equal(await gate.run('other', async () => 'refused'), null)
    const known = gate.run('known', async () => 'known')
    first.finish('first')
    assert.deepEqual(await Promise.all([running, other, known]), [
      { value: 'first' },
      { value: 'other' },
      { value: 'known' },
    ])
  })

  it("holds at most knownWaitingPerAccount of the known lane's places for one account", async () => {
    const gate = new PasswordWork({ atOnce: 1, knownWaiting: 4, knownWaitingPerAccount: 2 })
    const first = held()
    const running = gate.run('known', () => first.promise, 'stranger')
    const theirs = [1, 2].map((n) => gate.run('known', async () => `theirs ${n}`, 'stranger'))
    assert.equal(await gate.run('known', async () => 'refused', 'stranger'), null)
    const owner = gate.run('known', async () => 'owner', 'owner')
    assert.deepEqual(gate.load, { running: 1, known: 3, other: 0 })
    first.finish('first')
    assert.deepEqual(await Promise.all([running, ...theirs, owner]), [
      { value: 'first' },
      { value: 'theirs 1' },
      { value: 'theirs 2' },
      { value: 'owner' },
    ])
    // Served, they give their places back.
    const second = held()
    const busy = gate.run('known', () => second.promise, 'stranger')
    const back = [1, 2].map(() => gate.run('known', async () => 'back', 'stranger'))
    second.finish('second')
    assert.deepEqual(await Promise.all([busy, ...back]), [
      { value: 'second' },
      { value: 'back' },
      { value: 'back' },
    ])
  })
})
