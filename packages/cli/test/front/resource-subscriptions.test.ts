/**
 * Who is subscribed to what, and the bounds on what one session may hold (a remote agent's
 * subscriptions last as long as its session).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  MAX_SUBSCRIBED_URI_CHARS_PER_SESSION,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  ResourceSubscriptions,
} from '../../src/front/resource-subscriptions.js'

describe('ResourceSubscriptions', () => {
  it('joins sessions on one upstream subscription and unsubscribes with the last', () => {
    const subs = new ResourceSubscriptions()
    subs.add('mem://a', 'up', 's1')
    subs.add('mem://a', 'up', 's2')
    assert.equal(subs.remove('mem://a', 's3'), undefined, 'never subscribed')
    assert.equal(subs.remove('mem://a', 's1'), null, 's2 remains')
    assert.deepEqual(subs.dropSession('s2'), [{ uri: 'mem://a', upstream: 'up' }])
    assert.equal(subs.upstreamOf('mem://a'), undefined)
  })

  it('holds back the last leaving while a subscribe is on its way, and gives it after a failure', () => {
    const subs = new ResourceSubscriptions()
    subs.add('mem://a', 'up', 's1')
    const joined = subs.subscribing('mem://a', 's2')
    assert.equal(subs.remove('mem://a', 's1'), null, 'held back: s2 is subscribing')
    subs.add('mem://a', 'up', 's2')
    assert.equal(joined(), undefined, 's2 holds the upstream subscription now')
    assert.equal(joined(), undefined, 'settled once')
    assert.deepEqual(subs.subscribers('mem://a'), ['s2'])
    // s2's subscribe fails after s1 left, and s3's too: the last to settle unsubscribes.
    const failed = subs.subscribing('mem://a', 's2')
    const failedToo = subs.subscribing('mem://a', 's3')
    assert.deepEqual(subs.dropSession('s2'), [])
    assert.equal(failed(), undefined, 'another subscribe is still on its way')
    assert.equal(failedToo(), 'up')
    assert.equal(subs.upstreamOf('mem://a'), undefined)
    // Nothing was held back: nothing to unsubscribe.
    assert.equal(subs.subscribing('mem://b', 's4')(), undefined)
  })

  it('bounds the subscriptions of one session, not of others', () => {
    const subs = new ResourceSubscriptions()
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SESSION; i++) {
      assert.equal(subs.refusal(`mem://r/${i}`, 's1'), null)
      subs.add(`mem://r/${i}`, 'up', 's1')
    }
    assert.match(subs.refusal('mem://r/more', 's1') ?? '', /subscribed to 1000 resources/)
    assert.equal(subs.refusal('mem://r/0', 's1'), null, 'subscribing again takes no room')
    assert.equal(subs.refusal('mem://r/more', 's2'), null, 'another session is not bounded by it')
    subs.remove('mem://r/0', 's1')
    assert.equal(subs.refusal('mem://r/more', 's1'), null, 'an unsubscribe makes room')
    const long = `mem://${'x'.repeat(MAX_SUBSCRIBED_URI_CHARS_PER_SESSION)}`
    assert.match(subs.refusal(long, 's3') ?? '', /would pass \d+ characters/)
    assert.equal(subs.dropSession('s1').length, MAX_SUBSCRIPTIONS_PER_SESSION - 1)
    assert.equal(subs.refusal('mem://r/more', 's1'), null, 'an ended session holds nothing')
  })

  it('counts subscribes on their way against the bound, until they fail', () => {
    const subs = new ResourceSubscriptions()
    const settles: (() => string | undefined)[] = []
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SESSION; i++) {
      assert.equal(subs.refusal(`mem://r/${i}`, 's1'), null)
      settles.push(subs.subscribing(`mem://r/${i}`, 's1'))
    }
    assert.match(subs.refusal('mem://r/more', 's1') ?? '', /subscribed to 1000 resources/)
    assert.equal(subs.refusal('mem://r/0', 's1'), null, 'subscribing again takes no room')
    // One is answered (recorded, then settled), the others fail: only it still counts.
    subs.add('mem://r/0', 'up', 's1')
    for (const settle of settles) settle()
    for (let i = 1; i < MAX_SUBSCRIPTIONS_PER_SESSION; i++) {
      assert.equal(subs.refusal(`mem://x/${i}`, 's1'), null)
      subs.add(`mem://x/${i}`, 'up', 's1')
    }
    assert.match(subs.refusal('mem://r/more', 's1') ?? '', /subscribed to 1000 resources/)
    const long = `mem://${'x'.repeat(MAX_SUBSCRIBED_URI_CHARS_PER_SESSION - 10)}`
    const failing = subs.subscribing(long, 's2')
    assert.match(subs.refusal('mem://r/more/than/ten', 's2') ?? '', /would pass \d+ characters/)
    failing()
    assert.equal(subs.refusal('mem://r/more/than/ten', 's2'), null, 'a failed one holds nothing')
  })
})
