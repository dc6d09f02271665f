// Open requests noted per tunnel: checked again on demand, those no longer admitted ended, and
// forgotten when they close.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AdmittedExchanges } from '../../src/edge/admitted-exchanges.js'

describe('AdmittedExchanges', () => {
  it('ends only the exchanges of the tunnel checked that the gate now refuses', async () => {
    const admitted = new AdmittedExchanges()
    const ended: string[] = []
    const verdict = new Map([
      ['a1', true],
      ['a2', false],
      ['b1', false],
    ])
    const note = (tunnel: string, name: string) =>
      admitted.add(
        tunnel,
        () => Promise.resolve(verdict.get(name) ?? true),
        () => ended.push(name),
      )
    const forgets = [note('tun_a', 'a1'), note('tun_a', 'a2'), note('tun_b', 'b1')]
    assert.equal(admitted.size, 3)
    assert.equal(await admitted.recheck('tun_a'), 1)
    assert.deepEqual(ended, ['a2'])
    assert.equal(await admitted.recheck('tun_unknown'), 0)
    assert.equal(await admitted.recheckAll(), 2, 'a2 is still open until it closes')
    assert.deepEqual(ended, ['a2', 'a2', 'b1'])
    for (const forget of forgets) {
      forget()
      forget() // closing twice forgets once
    }
    assert.equal(admitted.size, 0)
    assert.equal(await admitted.recheckAll(), 0)
  })

  it('keeps an exchange whose check failed (no news is not a refusal)', async () => {
    const admitted = new AdmittedExchanges()
    let ended = 0
    const forget = admitted.add(
      'tun_a',
      () => Promise.reject(new Error('database unreachable')),
      () => ended++,
    )
    assert.equal(await admitted.recheck('tun_a'), 0)
    assert.equal(ended, 0)
    forget()
  })
})
