// Which agent request a server→client request from an upstream is for (UpstreamCalls.askOwner):
// the call on whose stream it came, else the one session with calls in flight or just cancelled.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { noopAggregatorMetrics } from '../../src/aggregator/aggregator-metrics.js'
import { UpstreamCalls } from '../../src/aggregator/upstream-calls.js'

function calls(): UpstreamCalls {
  return new UpstreamCalls({
    name: 'up',
    metrics: noopAggregatorMetrics,
    send: () => Promise.resolve(),
    post: () => {},
  })
}

const owner = (sessionId: string, agentId: number) => ({ owner: { sessionId, agentId } })

describe('UpstreamCalls.askOwner', () => {
  it('names the call on whose stream the request came, whatever else is in flight', () => {
    const up = calls()
    void up.call('tools/call', {}, owner('a', 1)).catch(() => {})
    void up.call('tools/call', {}, owner('b', 7)).catch(() => {})
    void up.call('tools/list', {}).catch(() => {})
    assert.deepEqual(up.askOwner(1), { sessionId: 'a', agentId: 1 })
    assert.deepEqual(up.askOwner(2), { sessionId: 'b', agentId: 7 })
    assert.equal(up.askOwner(3), 'unplaced', "the aggregator's own request: no agent")
    assert.equal(up.askOwner(99), 'unplaced', 'a call that ended: nobody else')
    assert.equal(up.askOwner(undefined), 'unplaced', 'no stream, two sessions')
  })

  it('without a stream: the one session in flight, unless another just cancelled', () => {
    const up = calls()
    const gaveUp = new AbortController()
    void up.call('tools/call', {}, { ...owner('a', 1), signal: gaveUp.signal }).catch(() => {})
    void up.call('tools/call', {}, owner('b', 2)).catch(() => {})
    gaveUp.abort('changed my mind')
    // a's call is gone, but the upstream may have asked for it before it heard.
    assert.equal(up.askOwner(undefined), 'unplaced')
    const quiet = calls()
    void quiet.call('tools/call', {}, owner('b', 2)).catch(() => {})
    assert.deepEqual(quiet.askOwner(undefined), { sessionId: 'b', agentId: 2 })
    assert.equal(calls().askOwner(undefined), undefined, 'nothing in flight')
  })
})
