/**
 * Response bytes gathered per tunnel and plan on their way to the counters: one batch for all of
 * a tunnel's responses, sent when full, when a response ends, or a second after its first byte.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  RESPONSE_BATCH_BYTES,
  RESPONSE_WAIT_MS,
  ResponseBatches,
  type BatchedTunnel,
} from '../../src/quota/response-batches.js'

const FREE: BatchedTunnel = { id: 'tun_1', accountId: 'acc_1', plan: 'free' }
const PRO_ERA: BatchedTunnel = { ...FREE, plan: 'pro' }
const OTHER: BatchedTunnel = { id: 'tun_2', accountId: 'acc_2', plan: 'free' }

function recorder(): { sent: [string, string, number][]; batches: ResponseBatches<BatchedTunnel> } {
  const sent: [string, string, number][] = []
  return { sent, batches: new ResponseBatches((t, n) => sent.push([t.id, t.plan, n])) }
}

describe('ResponseBatches', () => {
  it("fills one batch from all of a tunnel's responses (found by a hostile review)", () => {
    const { sent, batches } = recorder()
    // Forty responses of a little less than a batch each: each waited on its own before.
    for (let i = 0; i < 4; i++) batches.add(FREE, RESPONSE_BATCH_BYTES / 2)
    assert.deepEqual(sent, [
      [FREE.id, 'free', RESPONSE_BATCH_BYTES],
      [FREE.id, 'free', RESPONSE_BATCH_BYTES],
    ])
    assert.equal(batches.waitingBytes, 0)
  })

  it('keeps tunnels and the plans responses were admitted under apart', () => {
    const { sent, batches } = recorder()
    batches.add(FREE, 10)
    batches.add(PRO_ERA, 20)
    batches.add(OTHER, 30)
    batches.sendOf(FREE)
    assert.deepEqual(sent, [[FREE.id, 'free', 10]])
    batches.sendAll()
    assert.deepEqual(sent.slice(1), [
      [FREE.id, 'pro', 20],
      [OTHER.id, 'free', 30],
    ])
  })

  it('sends what waits a second after it came (found by a hostile review)', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { sent, batches } = recorder()
    batches.add(FREE, 100)
    t.mock.timers.tick(RESPONSE_WAIT_MS - 1)
    batches.add(FREE, 50)
    assert.deepEqual(sent, [])
    t.mock.timers.tick(1)
    assert.deepEqual(sent, [[FREE.id, 'free', 150]])
    batches.add(FREE, 0)
    t.mock.timers.tick(RESPONSE_WAIT_MS)
    assert.equal(sent.length, 1, 'nothing to send: nothing sent')
  })

  it('forgets what waits when discarded, and its timer', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const { sent, batches } = recorder()
    batches.add(FREE, 7)
    assert.equal(batches.discard(), 7)
    t.mock.timers.tick(RESPONSE_WAIT_MS)
    assert.deepEqual(sent, [])
  })
})
