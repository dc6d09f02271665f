/**
 * PostTracker: which open POSTs it drops. Through a real server that never answers:
 * http-channel.test.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_UNANSWERED_POSTS, PostTracker, wasDropped } from '../../src/aggregator/post-tracker.js'

describe('PostTracker', () => {
  it('drops a request’s POST when its cancellation is sent, and only that one', () => {
    const posts = new PostTracker()
    const first = new AbortController()
    const second = new AbortController()
    posts.track({ jsonrpc: '2.0', id: 1, method: 'tools/call' }, first)
    posts.track({ jsonrpc: '2.0', id: '1', method: 'tools/call' }, second)
    const cancel = new AbortController()
    const params = { requestId: 1, reason: 'gave up' }
    posts.track({ jsonrpc: '2.0', method: 'notifications/cancelled', params }, cancel)
    assert.ok(wasDropped(first))
    assert.ok(!second.signal.aborted, 'the string id "1" is another request')
    // A cancellation for an id never sent, or already answered, drops nothing.
    posts.forget(second)
    const again = { requestId: '1', reason: 'late' }
    posts.track({ jsonrpc: '2.0', method: 'notifications/cancelled', params: again }, cancel)
    assert.ok(!second.signal.aborted)
  })

  it('keeps at most the bound of notification and answer POSTs, dropping the oldest', () => {
    const posts = new PostTracker()
    const aborts = Array.from({ length: MAX_UNANSWERED_POSTS + 3 }, () => new AbortController())
    posts.forget(aborts[1]!)
    for (const [n, abort] of aborts.entries()) {
      if (n === 1) continue
      posts.track({ jsonrpc: '2.0', id: n, result: {} }, abort)
      if (n === 2) posts.forget(abort)
    }
    const dropped = aborts.flatMap((abort, n) => (wasDropped(abort) ? [n] : []))
    assert.deepEqual(dropped, [0])
  })
})
