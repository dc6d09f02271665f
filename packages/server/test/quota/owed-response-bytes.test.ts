/**
 * Response bytes the counters failed to take: offered again when the increment did not run
 * (Redis away), let go when it may have (its reply lost to a dropped connection, or timed out):
 * offered again, an increment Redis had made was counted twice.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import { OWED_RETRY_MS, OwedResponseBytes } from '../../src/quota/owed-response-bytes.js'
import { RedisReplyLostError } from '../../src/store/redis-reply-lost.js'

const TUNNEL = { id: 'tun_owed' }
const AT = new Date('2099-01-15T12:00:00.000Z')

function owedBytes() {
  const retried: number[] = []
  const lines: string[] = []
  const owed = new OwedResponseBytes(
    createLogger('warn', (line) => lines.push(line)),
    (_tunnel, n) => retried.push(n),
  )
  return { owed, retried, lines }
}

describe('OwedResponseBytes', () => {
  it('offers bytes whose increment was not sent again, summed by tunnel and month', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { owed, retried } = owedBytes()
    owed.owe(TUNNEL, 10, AT, new Error('Connection is closed.'))
    owed.owe(TUNNEL, 5, AT, Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))
    assert.equal(owed.bytes, 15)
    t.mock.timers.tick(OWED_RETRY_MS)
    assert.deepEqual(retried, [15])
    assert.equal(owed.bytes, 0)
    owed.close()
  })

  it('lets go of bytes whose increment may have run, and says so once', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { owed, retried, lines } = owedBytes()
    owed.owe(TUNNEL, 10, AT, new RedisReplyLostError('eval'))
    owed.owe(TUNNEL, 5, AT, new Error('Command timed out'))
    owed.owe(TUNNEL, 1, AT, new Error('wrapped', { cause: new RedisReplyLostError('eval') }))
    assert.equal(owed.bytes, 0)
    t.mock.timers.tick(OWED_RETRY_MS)
    t.mock.timers.tick(OWED_RETRY_MS)
    assert.deepEqual(retried, [])
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /16 response bytes may not be counted/)
    assert.equal(owed.close(), 0)
  })
})
