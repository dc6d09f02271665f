/**
 * Responses still streaming follow their account's plan: an `account` event makes the quota gate
 * cut a response admitted under a higher plan by the plan the account is on now (found by a
 * hostile review).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import type { PlanId } from '../../src/plans.js'
import { followPlanChanges } from '../../src/quota/plan-changes.js'
import { QuotaGate, RESPONSE_OVERAGE_BYTES } from '../../src/quota/quota-gate.js'
import type { UsageCounters } from '../../src/quota/usage-counters.js'

const FREE_BYTES = 5_000_000_000

/** Counters whose every month stands at `value` bandwidth bytes. */
function countersAt(value: number): UsageCounters {
  return { get: () => Promise.resolve(value) } as unknown as UsageCounters
}

describe('followPlanChanges', () => {
  it("cuts a stream admitted under Pro once the account's plan is Free and its month past Free's limit", async () => {
    const events = new LocalClusterEvents()
    const gate = new QuotaGate({
      counters: countersAt(FREE_BYTES + RESPONSE_OVERAGE_BYTES),
      log: silentLogger,
    })
    const plans = new Map<string, PlanId>([['acc_1', 'pro']])
    const asked: string[] = []
    let read: () => void = () => {}
    const readDone = new Promise<void>((resolve) => (read = resolve))
    followPlanChanges(
      events,
      gate,
      async (id) => {
        asked.push(id)
        read()
        return plans.get(id)
      },
      silentLogger,
    )
    const cut: string[] = []
    gate.responseMeter({ id: 'tun_1', accountId: 'acc_1', plan: 'pro' }, () => cut.push('tun_1'))

    await events.publish({ type: 'account', accountId: 'acc_2' })
    assert.deepEqual(asked, [], 'an account with nothing streaming is not read')

    plans.set('acc_1', 'free')
    let cutDone: () => void = () => {}
    const wasCut = new Promise<void>((resolve) => (cutDone = resolve))
    gate.responseMeter({ id: 'tun_2', accountId: 'acc_1', plan: 'pro' }, () => {
      cut.push('tun_2')
      cutDone()
    })
    await events.publish({ type: 'account', accountId: 'acc_1' })
    await readDone
    await wasCut
    assert.deepEqual(asked, ['acc_1'])
    assert.deepEqual(cut.sort(), ['tun_1', 'tun_2'])
  })

  it('treats an account gone as Free, and a failed read as no change', async () => {
    const events = new LocalClusterEvents()
    const gate = new QuotaGate({
      counters: countersAt(FREE_BYTES + RESPONSE_OVERAGE_BYTES),
      log: silentLogger,
    })
    const warned: string[] = []
    let warnedOnce: () => void = () => {}
    const failed = new Promise<void>((resolve) => (warnedOnce = resolve))
    const log = {
      ...silentLogger,
      warn: (line: string) => {
        warned.push(line)
        warnedOnce()
      },
    }
    let fail = true
    followPlanChanges(
      events,
      gate,
      () => (fail ? Promise.reject(new Error('database away')) : Promise.resolve(undefined)),
      log,
    )
    let cutDone: () => void = () => {}
    const wasCut = new Promise<void>((resolve) => (cutDone = resolve))
    gate.responseMeter({ id: 'tun_1', accountId: 'acc_1', plan: 'scale' }, cutDone)
    await events.publish({ type: 'account', accountId: 'acc_1' })
    await failed
    assert.match(warned[0] ?? '', /acc_1.*database away/)
    assert.equal(gate.streamsOf('acc_1'), true, 'the stream goes on')
    fail = false
    await events.publish({ type: 'account', accountId: 'acc_1' })
    await wasCut
    assert.equal(gate.streamsOf('acc_1'), false)
  })

  it('tells the gate the newest read of an account, not one that answered after it (found by a review)', async () => {
    // Downgraded to Free, then upgraded to Scale: the first read (Free) answering last must not
    // leave the stream at Free's limit.
    const events = new LocalClusterEvents()
    const gate = new QuotaGate({
      counters: countersAt(FREE_BYTES + RESPONSE_OVERAGE_BYTES),
      log: silentLogger,
    })
    const pending: ((plan: PlanId) => void)[] = []
    followPlanChanges(
      events,
      gate,
      () => new Promise<PlanId>((resolve) => pending.push(resolve)),
      silentLogger,
    )
    const cut: string[] = []
    gate.responseMeter({ id: 'tun_1', accountId: 'acc_1', plan: 'scale' }, () => cut.push('tun_1'))
    await events.publish({ type: 'account', accountId: 'acc_1' })
    await events.publish({ type: 'account', accountId: 'acc_1' })
    assert.equal(pending.length, 2)
    pending[1]!('scale')
    await new Promise((r) => setImmediate(r))
    pending[0]!('free')
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    assert.deepEqual(cut, [], 'the older read (Free) is not applied after the newer (Scale)')
    assert.equal(gate.streamsOf('acc_1'), true)
  })
})
