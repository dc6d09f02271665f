/**
 * The bounded id table of one upstream: when full, the oldest call of the agent with the most in
 * flight evicted first (one agent's flood drops its own calls); the owner of the calls in flight
 * found when they serve one session, and told apart when they serve several.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PendingTable, type PendingCall } from '../../src/aggregator/pending-table.js'

function call(upstreamId: number, agentId?: number, sessionId = 's', group?: string): PendingCall {
  return {
    upstreamId,
    method: 'tools/call',
    owner: agentId === undefined ? undefined : { sessionId, agentId, ...(group ? { group } : {}) },
    resolve: () => {},
    reject: () => {},
    onProgress: undefined,
    detach: () => {},
  }
}

describe('PendingTable', () => {
  it('evicts the oldest call when full', () => {
    const table = new PendingTable(2)
    assert.equal(table.add(call(1)), undefined)
    assert.equal(table.add(call(2)), undefined)
    assert.equal(table.add(call(3))?.upstreamId, 1)
    assert.equal(table.size, 2)
    assert.equal(table.get(1), undefined)
    assert.equal(table.take(2)?.upstreamId, 2)
    assert.equal(table.take(2), undefined)
    assert.equal(table.get('3'), undefined, 'ids are numbers of our own')
  })

  it("evicts the oldest call of the agent with the most in flight, not another agent's", () => {
    const table = new PendingTable(4)
    table.add(call(1, 1, 'victim'))
    table.add(call(2, 1, 'flood'))
    table.add(call(3, 2, 'flood'))
    table.add(call(4, 1, 'other', 'agent-x'))
    assert.equal(table.add(call(5, 3, 'flood'))?.upstreamId, 2)
    assert.equal(table.add(call(6, 4, 'flood'))?.upstreamId, 3)
    assert.equal(table.add(call(7, 5, 'flood'))?.upstreamId, 5)
    assert.ok(table.get(1) && table.get(4), "the others' calls stay")
    // Once the victim holds the most, its own oldest goes.
    assert.equal(table.take(6)?.upstreamId, 6)
    assert.equal(table.add(call(8, 2, 'victim'))?.upstreamId, undefined)
    assert.equal(table.add(call(9, 6, 'flood'))?.upstreamId, 1)
    assert.equal(table.size, 4)
    assert.equal(table.drain().length, 4)
    assert.equal(table.add(call(10)), undefined, 'empty again')
  })

  it('of agents with as many calls, evicts from the one whose oldest came last', () => {
    // One call each from many sessions: the long-lived agent's call is not the one to go.
    const table = new PendingTable(3)
    table.add(call(1, 1, 'victim'))
    table.add(call(2, 1, 'a'))
    table.add(call(3, 1, 'b'))
    assert.equal(table.add(call(4, 1, 'c'))?.upstreamId, 3)
    assert.equal(table.add(call(5, 1, 'd'))?.upstreamId, 4)
    assert.ok(table.get(1), "the victim's call stays")
  })

  it('finds the latest call that serves an agent when all serve one session', () => {
    const table = new PendingTable()
    table.add(call(1, 10))
    table.add(call(2, 20))
    table.add(call(3))
    assert.deepEqual(table.soleOwner(), { sessionId: 's', agentId: 20 })
    table.take(2)
    assert.deepEqual(table.soleOwner(), { sessionId: 's', agentId: 10 })
    assert.equal(table.drain().length, 2)
    assert.equal(table.soleOwner(), undefined)
  })

  it('says "unplaced" when the calls in flight serve more than one session', () => {
    const table = new PendingTable()
    table.add(call(1, 10, 'a'))
    table.add(call(2))
    table.add(call(3, 10, 'b'))
    assert.equal(table.soleOwner(), 'unplaced')
    table.take(1)
    assert.deepEqual(table.soleOwner(), { sessionId: 'b', agentId: 10 })
  })

  it('takes the owners of one group (sessionless seats) as one', () => {
    const table = new PendingTable()
    table.add(call(1, 10, 'seat-1', 'sessionless'))
    table.add(call(2, 20, 'seat-2', 'sessionless'))
    assert.deepEqual(table.soleOwner(), { sessionId: 'seat-2', agentId: 20, group: 'sessionless' })
    table.add(call(3, 30, 'agent'))
    assert.equal(table.soleOwner(), 'unplaced')
  })
})
