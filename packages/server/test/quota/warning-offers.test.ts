/**
 * `quota.warning` handed to its listener, and offered again while the listener fails: the
 * crossing of 80% happens once a month, so a warning it failed to take was never sent.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger } from '@burrow/protocol'
import type { QuotaWarning } from '../../src/quota/quota-warning.js'
import { WARNING_RETRY_MS, WarningOffers } from '../../src/quota/warning-offers.js'

const WARNING: QuotaWarning = {
  accountId: 'acc_1',
  tunnelId: 'tun_1',
  metric: 'tool_calls',
  limit: 100_000,
  used: 80_000,
  period: '2099-01',
  resetsAt: new Date('2099-02-01T00:00:00.000Z'),
}

/** Let the listener's rejections settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('WarningOffers', () => {
  it('offers a warning again until the listener takes it (found by a hostile review)', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    const lines: string[] = []
    let failures = 3
    const taken: QuotaWarning[] = []
    const offers = new WarningOffers(
      async (w) => {
        if (failures-- > 0) throw new Error('database unavailable')
        taken.push(w)
      },
      createLogger('debug', (line) => void lines.push(line)),
      () => new Date('2099-01-20T00:00:00.000Z'),
    )
    offers.offer(WARNING)
    await settle()
    assert.equal(offers.waiting, 1)
    for (let i = 0; i < 3; i++) {
      t.mock.timers.tick(WARNING_RETRY_MS)
      await settle()
    }
    assert.deepEqual(taken, [WARNING])
    assert.equal(offers.waiting, 0)
    assert.equal(lines.filter((l) => l.includes('listener failed')).length, 1, 'logged once')
    t.mock.timers.tick(WARNING_RETRY_MS)
    await settle()
    assert.equal(taken.length, 1, 'taken once')
  })

  it('drops a warning whose month is over, and what waits when closed', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] })
    let now = new Date('2099-01-31T23:59:59.000Z')
    let calls = 0
    const offers = new WarningOffers(
      () => {
        calls++
        throw new Error('down')
      },
      createLogger('error', () => {}),
      () => now,
    )
    offers.offer(WARNING)
    offers.offer({ ...WARNING, tunnelId: 'tun_2', period: '2099-02' })
    now = new Date('2099-02-01T00:00:05.000Z')
    t.mock.timers.tick(WARNING_RETRY_MS)
    await settle()
    assert.equal(calls, 3, "January's is not offered in February")
    assert.equal(offers.waiting, 1)
    offers.close()
    t.mock.timers.tick(WARNING_RETRY_MS)
    assert.equal(calls, 3)
    assert.equal(offers.waiting, 0)
  })
  it('does not offer again a warning whose listener fails after close', async (t) => {
    // The listener still running at shutdown fails against the closing store: before, that
    // failure armed the retry again, and the listener ran every 5 s after close.
    t.mock.timers.enable({ apis: ['setTimeout'] })
    let calls = 0
    let fail: (error: Error) => void = () => {}
    const offers = new WarningOffers(
      () => {
        calls++
        return new Promise<void>((_, reject) => (fail = reject))
      },
      createLogger('debug', () => {}),
      () => new Date('2099-01-20T00:00:00.000Z'),
    )
    offers.offer(WARNING)
    offers.close()
    fail(new Error('the store is closed'))
    await settle()
    assert.equal(offers.waiting, 0)
    t.mock.timers.tick(WARNING_RETRY_MS)
    await settle()
    assert.equal(calls, 1, 'not offered again after close')
  })
})
