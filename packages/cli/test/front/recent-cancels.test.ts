// Sessions with a call cancelled within the grace, on a fake clock.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RecentCancels } from '../../src/front/recent-cancels.js'

describe('RecentCancels', () => {
  it('keeps a key for the grace after its latest cancellation', () => {
    let now = 0
    const cancels = new RecentCancels<string>(1_000, () => now)
    cancels.add('a')
    now = 600
    cancels.add('b')
    assert.deepEqual(cancels.keys(), ['a', 'b'])
    now = 1_000
    assert.deepEqual(cancels.keys(), ['b'])
    cancels.add('b')
    now = 1_900
    assert.deepEqual(cancels.keys(), ['b'])
    now = 2_000
    assert.deepEqual(cancels.keys(), [])
    cancels.add('c')
    cancels.clear()
    assert.deepEqual(cancels.keys(), [])
  })
})
