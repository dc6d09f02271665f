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

  it('pushes out the oldest call of the agent holding the most when full (found by a hostile review)', () => {
    // Ten approved agents, each at its share, filled every place: no other agent's call that
    // asked for input could wait for its retry.
    const ended: string[] = []
    const bridge = new InputBridge<string>(4, 3, (call) => ended.push(call))
    for (const call of ['a-1', 'a-2', 'a-3']) assert.notEqual(bridge.park(call, 'agt_a'), null)
    assert.notEqual(bridge.park('b-1', 'agt_b'), null)
    assert.notEqual(bridge.park('c-1', 'agt_c'), null, 'a newcomer takes the oldest of the most')
    assert.deepEqual(ended, ['a-1'])
    assert.equal(bridge.size, 4)
    assert.notEqual(bridge.park('d-1', 'agt_d'), null)
    assert.deepEqual(ended, ['a-1', 'a-2'])
    // Now every agent holds one or two: nobody holds two more than a newcomer's next call.
    assert.equal(bridge.park('b-2', 'agt_b'), null, 'no agent holds two more than agt_b')
    assert.equal(bridge.park('public-1'), null, 'a public caller pushes nobody out')
    assert.deepEqual(ended, ['a-1', 'a-2'])
    assert.deepEqual(bridge.calls().sort(), ['a-3', 'b-1', 'c-1', 'd-1'])
  })
})
