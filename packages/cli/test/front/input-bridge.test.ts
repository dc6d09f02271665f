/**
 * Calls parked waiting for an agent's retry: each under a fresh state, taken once, forgotten when
 * it ends, and no more than the bound at once.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { InputBridge } from '../../src/front/input-bridge.js'

describe('InputBridge', () => {
  it('parks a call under a fresh state, taken once', () => {
    const bridge = new InputBridge<string>()
    const state = bridge.park('call-1')
    assert.ok(state !== null && InputBridge.issued(state))
    assert.equal(bridge.take(state), 'call-1')
    assert.equal(bridge.take(state), undefined)
    assert.equal(bridge.take(7), undefined)
    assert.equal(bridge.size, 0)
  })

  it('keeps a call under its newest state only, and forgets it when it ends', () => {
    const bridge = new InputBridge<string>()
    const first = bridge.park('call-1')
    const second = bridge.park('call-1')
    assert.equal(bridge.size, 1)
    assert.equal(bridge.take(first), undefined)
    assert.equal(bridge.park('call-2') === null, false)
    bridge.forget('call-2')
    assert.deepEqual(bridge.calls(), ['call-1'])
    assert.equal(bridge.take(second), 'call-1')
  })

  it('parks no more than its bound at once', () => {
    const bridge = new InputBridge<number>(2)
    assert.notEqual(bridge.park(1), null)
    assert.notEqual(bridge.park(2), null)
    assert.equal(bridge.park(3), null)
    bridge.forget(1)
    assert.notEqual(bridge.park(3), null)
  })
})
