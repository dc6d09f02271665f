/** The bounded id table of one upstream: oldest evicted first, latest owned call found. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PendingTable, type PendingCall } from '../../src/aggregator/pending-table.js'

function call(upstreamId: number, agentId?: number): PendingCall {
  return {
    upstreamId,
    method: 'tools/call',
    owner: agentId === undefined ? undefined : { sessionId: 's', agentId },
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

  it('finds the most recent call that serves an agent', () => {
    const table = new PendingTable()
    table.add(call(1, 10))
    table.add(call(2, 20))
    table.add(call(3))
    assert.equal(table.latestOwned()?.owner?.agentId, 20)
    table.take(2)
    assert.equal(table.latestOwned()?.owner?.agentId, 10)
    assert.equal(table.drain().length, 2)
    assert.equal(table.latestOwned(), undefined)
  })
})
