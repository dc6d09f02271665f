// Which failures say that Redis cannot be reached (answered 503 with Retry-After), as ioredis
// words them; anything else stays an internal error.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { RedisReplyLostError } from '../../src/store/redis-reply-lost.js'
import { isSharedStateUnavailable } from '../../src/store/shared-state-unavailable.js'
import { freePort } from '../../../../test/helpers/free-port.js'

describe('isSharedStateUnavailable', () => {
  it('recognises what ioredis rejects with when Redis is down', async () => {
    const redis = new Redis(await freePort(), '127.0.0.1', {
      maxRetriesPerRequest: 1,
      retryStrategy: () => 10,
    })
    redis.on('error', () => {})
    try {
      const err = await redis.get('k').then(
        () => assert.fail('nothing listens there'),
        (e: Error) => e,
      )
      assert.ok(isSharedStateUnavailable(err), `${err.name}: ${err.message}`)
    } finally {
      redis.disconnect()
    }
    assert.ok(isSharedStateUnavailable(new Error('Command timed out')))
    assert.ok(isSharedStateUnavailable(new RedisReplyLostError('eval')))
  })

  it('leaves other failures alone', () => {
    for (const message of ['boom', 'Command timed out later', 'Cannot read properties of null']) {
      assert.equal(isSharedStateUnavailable(new Error(message)), false, message)
    }
  })
})
