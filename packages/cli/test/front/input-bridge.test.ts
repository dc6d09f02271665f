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

  it('parks at most perAgent calls of one named agent (found by a hostile review)', () => {
    // The edge holds a place for a 2026-07-28 request only while it is in flight: one agent
    // leaving calls waiting took every parked place, and every other agent's call asking for
    // input was ended.
    const bridge = new InputBridge<string>(10, 2)
    assert.notEqual(bridge.park('a-1', 'agt_a'), null)
    const second = bridge.park('a-2', 'agt_a')
    assert.notEqual(second, null)
    assert.equal(bridge.park('a-3', 'agt_a'), null, "past the agent's share")
    assert.notEqual(bridge.park('b-1', 'agt_b'), null, 'another agent still parks')
    assert.notEqual(bridge.park('public-1'), null, 'a public caller is not counted as an agent')
    bridge.take(second)
    assert.notEqual(bridge.park('a-3', 'agt_a'), null, 'a place comes back when a call resumes')
    bridge.forget('a-1')
    bridge.park('a-2', 'agt_a')
    assert.equal(bridge.park('a-4', 'agt_a'), null, 'the share is full again')
  })
})
