/**
 * The edge's quota gate on every counter implementation (memory on SQLite, and on PostgreSQL
 * and Redis when their URLs are set), with an injected clock: what is admitted and refused,
 * the refusal's words and Retry-After, the monthly reset at 00:00 UTC on the 1st, response
 * bytes counted in batches past the limit, and the 80% warning raised once.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import {
  OWED_RETRY_MS,
  QuotaGate,
  RESPONSE_BATCH_BYTES,
  RESPONSE_OVERAGE_BYTES,
  RESPONSE_WAIT_MS,
  type MeteredTunnel,
} from '../../src/quota/quota-gate.js'
import { formatBytes, formatReset } from '../../src/quota/quota-refusal.js'
import type { QuotaWarning } from '../../src/quota/quota-warning.js'
import type { UsageCounters } from '../../src/quota/usage-counters.js'
import { counterImplementations, type CounterSubject } from './usage-counter-subjects.js'

const FREE: MeteredTunnel = { id: 'tun_free', accountId: 'acc_1', plan: 'free' }
const PRO: MeteredTunnel = { id: 'tun_pro', accountId: 'acc_2', plan: 'pro' }
const FREE_CALLS = 100_000
const FREE_BYTES = 5_000_000_000

/** The gate's refusal, or null when the request was admitted (and counted). */
async function admitted(gate: QuotaGate, tunnel: MeteredTunnel, toolCalls: number, bytes: number) {
  return (await gate.admit(tunnel, toolCalls, bytes)).refusal
}

for (const implementation of counterImplementations()) {
  describe(`QuotaGate on ${implementation.name}`, () => {
    let now = new Date('2099-01-31T23:59:00.000Z')
    let subject: CounterSubject
    let counters: UsageCounters
    let warnings: QuotaWarning[]
    let gate: QuotaGate

    beforeEach(async () => {
      now = new Date('2099-01-31T23:59:00.000Z')
      subject = await implementation.open(() => now)
      counters = subject.counters
      warnings = []
      gate = new QuotaGate({
        counters,
        log: silentLogger,
        clock: () => now,
        onQuotaWarning: (w) => void warnings.push(w),
      })
    })

    afterEach(async () => {
      await subject.close()
    })

    it('refuses on Jan 31 23:59 UTC a tunnel it serves at Feb 1 00:00', async () => {
      await counters.set(FREE.id, 'tool_calls', FREE_CALLS)
      const refused = await admitted(gate, FREE, 1, 100)
      assert.deepEqual(refused, {
        metric: 'tool_calls',
        limit: FREE_CALLS,
        used: FREE_CALLS,
        resetsAt: new Date('2099-02-01T00:00:00.000Z'),
        retryAfterSecs: 60,
        reason:
          'the monthly tool-call limit of 100,000 for this tunnel (Free plan) was reached; it resets on 2099-02-01 00:00 UTC',
      })
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 0, 'a refusal counts nothing')
      now = new Date('2099-02-01T00:00:00.000Z')
      assert.equal(await admitted(gate, FREE, 1, 100), null)
      assert.equal(await counters.get(FREE.id, 'tool_calls'), 1)
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 100)
    })

    it('admits requests while bandwidth is below the limit, whatever their size', async () => {
      await counters.set(PRO.id, 'bandwidth_bytes', 25_000_000_000 - 1)
      assert.equal(await admitted(gate, PRO, 0, 4096), null)
      const refused = await admitted(gate, PRO, 0, 0)
      assert.equal(refused?.metric, 'bandwidth_bytes')
      assert.equal(refused?.used, 25_000_000_000 + 4095)
      assert.equal(
        refused?.reason,
        'the monthly bandwidth limit of 25 GB for this tunnel (Pro plan) was reached; it resets on 2099-02-01 00:00 UTC',
      )
      // Over on bandwidth, a tool call is refused and not counted either.
      assert.equal((await admitted(gate, PRO, 1, 10))?.metric, 'bandwidth_bytes')
      assert.equal(await counters.get(PRO.id, 'tool_calls'), 0)
    })

    it('counts a batch of tool calls whole or not at all', async () => {
      await counters.set(FREE.id, 'tool_calls', FREE_CALLS - 2)
      assert.equal((await admitted(gate, FREE, 3, 50))?.metric, 'tool_calls')
      assert.equal(await counters.get(FREE.id, 'tool_calls'), FREE_CALLS - 2)
      assert.equal(await admitted(gate, FREE, 2, 50), null)
      assert.equal(await counters.get(FREE.id, 'tool_calls'), FREE_CALLS)
    })

    it('warns once when a counter reaches 80%, with what the webhook needs', async () => {
      await counters.set(FREE.id, 'tool_calls', 79_998)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.equal(warnings.length, 0)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.deepEqual(warnings, [
        {
          accountId: 'acc_1',
          tunnelId: 'tun_free',
          metric: 'tool_calls',
          limit: FREE_CALLS,
          used: 80_000,
          period: '2099-01',
          resetsAt: new Date('2099-02-01T00:00:00.000Z'),
        },
      ])
    })

    it('warns at the first count of a month already past 80%, once (found by a review)', async () => {
      // A downgrade, an operator's `usage set`, a tunnel carrying on another's month: no
      // increment crossed 80%, so no warning ever came, and the owner learnt of it from the 429.
      await counters.set(FREE.id, 'tool_calls', 90_000)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.deepEqual(
        warnings.map((w) => [w.metric, w.used, w.limit]),
        [['tool_calls', 90_001, FREE_CALLS]],
      )
      // Refused calls warn of nothing; a new month's first count past 80% warns again.
      await counters.set(FREE.id, 'tool_calls', FREE_CALLS)
      assert.equal((await admitted(gate, FREE, 1, 10))?.metric, 'tool_calls')
      assert.equal(warnings.length, 1)
      now = new Date('2099-02-01T00:00:00.000Z')
      await counters.set(FREE.id, 'tool_calls', 85_000)
      assert.equal(await admitted(gate, FREE, 1, 10), null)
      assert.deepEqual(
        warnings.map((w) => [w.period, w.used]),
        [
          ['2099-01', 90_001],
          ['2099-02', 85_001],
        ],
      )
    })

    it('counts response bytes in batches, past the limit, and warns from them too', async () => {
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES * 0.8 - 10)
      const meter = gate.responseMeter(FREE)
      meter.add(RESPONSE_BATCH_BYTES - 1)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), FREE_BYTES * 0.8 - 10, 'batched')
      meter.add(1)
      await gate.drain()
      assert.equal(
        await counters.get(FREE.id, 'bandwidth_bytes'),
        FREE_BYTES * 0.8 - 10 + RESPONSE_BATCH_BYTES,
      )
      assert.deepEqual(
        warnings.map((w) => [w.metric, w.used]),
        [['bandwidth_bytes', FREE_BYTES * 0.8 - 10 + RESPONSE_BATCH_BYTES]],
      )
      meter.add(FREE_BYTES)
      meter.add(5)
      meter.finish()
      meter.add(1000)
      meter.finish()
      await gate.drain()
      const total = FREE_BYTES * 1.8 - 10 + RESPONSE_BATCH_BYTES + 5
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), total, 'nothing after finish')
      assert.equal(warnings.length, 1)
    })

    it('cuts responses still streaming once the month is past the limit by the overage (found by a hostile review)', async () => {
      // An SSE stream admitted a byte below the limit carried the month on without bound: the
      // bytes were counted, and nothing stopped them.
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES - 1)
      const cut: string[] = []
      const stream = gate.responseMeter(FREE, () => cut.push('stream'))
      const other = gate.responseMeter(FREE, () => cut.push('other'))
      const done = gate.responseMeter(FREE, () => cut.push('done'))
      const pro = gate.responseMeter(PRO, () => cut.push('pro'))
      done.add(10)
      done.finish()
      pro.add(RESPONSE_BATCH_BYTES)
      for (let sent = 0; sent < RESPONSE_OVERAGE_BYTES - RESPONSE_BATCH_BYTES;) {
        stream.add(RESPONSE_BATCH_BYTES)
        sent += RESPONSE_BATCH_BYTES
      }
      await gate.drain()
      assert.deepEqual(cut, [], 'a response straddling the limit completes')
      stream.add(RESPONSE_BATCH_BYTES)
      await gate.drain()
      assert.deepEqual(cut.sort(), ['other', 'stream'])
      stream.add(RESPONSE_BATCH_BYTES)
      other.add(RESPONSE_BATCH_BYTES)
      await gate.drain()
      assert.equal(cut.length, 2, 'each response is cut once')
      assert.equal(
        await counters.get(FREE.id, 'bandwidth_bytes'),
        FREE_BYTES - 1 + 10 + RESPONSE_OVERAGE_BYTES + 2 * RESPONSE_BATCH_BYTES,
        'what flowed is counted',
      )
    })

    it('counts the answers that end in one turn with one increment per tunnel', async () => {
      const adds: [string, number][] = []
      const add = counters.add.bind(counters)
      counters.add = (tunnelId, metric, n, limit, at) => {
        adds.push([tunnelId, n])
        return add(tunnelId, metric, n, limit, at)
      }
      for (const n of [100, 200, 300]) {
        const meter = gate.responseMeter(FREE)
        meter.add(n)
        meter.finish()
      }
      const pro = gate.responseMeter(PRO)
      pro.add(7)
      pro.finish()
      await new Promise((resolve) => setImmediate(resolve))
      await gate.drain()
      assert.deepEqual(adds, [
        [FREE.id, 600],
        [PRO.id, 7],
      ])
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 600)
      // drain() sends what the current turn gathered without waiting for the turn to end.
      const late = gate.responseMeter(FREE)
      late.add(50)
      late.finish()
      await gate.drain()
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 650)
    })

    it('cuts a response by the limit of the plan it was admitted under (found by a hostile review)', async () => {
      // After an upgrade, a stream admitted under Free passing Free's limit cut every response of
      // the tunnel, those admitted under Pro too.
      const upgraded: MeteredTunnel = { ...FREE, plan: 'pro' }
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES + RESPONSE_OVERAGE_BYTES)
      const cut: string[] = []
      const freeEra = gate.responseMeter(FREE, () => cut.push('free-era stream'))
      gate.responseMeter(upgraded, () => cut.push('pro-era call'))
      freeEra.add(RESPONSE_BATCH_BYTES)
      await gate.drain()
      assert.deepEqual(cut, ['free-era stream'])
    })

    it('cuts a response admitted under a plan the account left by the lower plan’s limit (found by a hostile review)', async () => {
      // A stream admitted under Pro was cut only at Pro's limit whatever the account's plan
      // became: after a downgrade (a chargeback, a cancellation's end) one GET stream kept open
      // carried Pro's bandwidth every month on a Free tunnel.
      const proEra: MeteredTunnel = { ...FREE, plan: 'pro' }
      const cut: string[] = []
      const stream = gate.responseMeter(proEra, () => cut.push('pro-era stream'))
      const elsewhere = gate.responseMeter(PRO, () => cut.push("another account's stream"))
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES + RESPONSE_OVERAGE_BYTES)
      await counters.set(PRO.id, 'bandwidth_bytes', FREE_BYTES + RESPONSE_OVERAGE_BYTES)
      assert.equal(gate.streamsOf(FREE.accountId), true)
      await gate.planChanged(FREE.accountId, 'scale')
      assert.deepEqual(cut, [], 'an upgrade cuts nothing')
      await gate.planChanged(FREE.accountId, 'free')
      assert.deepEqual(cut, ['pro-era stream'], 'cut at once: the month is already past Free')
      assert.equal(gate.streamsOf(FREE.accountId), false)
      stream.add(RESPONSE_BATCH_BYTES)
      elsewhere.add(RESPONSE_BATCH_BYTES)
      await gate.drain()
      assert.deepEqual(cut, ['pro-era stream'], "another account's stream goes on")
    })

    it('cuts a response by the plan its account is on now, not the lowest it was on since (found by a review)', async () => {
      // Scale, then Free, then Pro: the stream admitted under Scale is cut at Pro's limit; it was
      // kept at Free's, the lowest plan it had been told of.
      const scaleEra: MeteredTunnel = { ...FREE, plan: 'scale' }
      const cut: string[] = []
      gate.responseMeter(scaleEra, () => cut.push('scale-era stream'))
      await gate.planChanged(FREE.accountId, 'free')
      await gate.planChanged(FREE.accountId, 'pro')
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES + RESPONSE_OVERAGE_BYTES)
      await gate.planChanged(FREE.accountId, 'pro')
      assert.deepEqual(cut, [], 'past Free but not past Pro: the stream goes on')
      await gate.planChanged(FREE.accountId, 'free')
      assert.deepEqual(cut, ['scale-era stream'])
    })

    it('cuts a response admitted before a downgrade once the month passes the new limit (found by a hostile review)', async () => {
      const proEra: MeteredTunnel = { ...FREE, plan: 'pro' }
      const cut: string[] = []
      const stream = gate.responseMeter(proEra, () => cut.push('pro-era stream'))
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES)
      await gate.planChanged(FREE.accountId, 'free')
      assert.deepEqual(cut, [], 'a stream straddling the new limit goes on')
      for (let sent = 0; sent < RESPONSE_OVERAGE_BYTES; sent += RESPONSE_BATCH_BYTES) {
        stream.add(RESPONSE_BATCH_BYTES)
      }
      await gate.drain()
      assert.deepEqual(cut, ['pro-era stream'])
    })

    it('does not cut this month’s responses for bytes of last month counted late (found by a hostile review)', async (t) => {
      t.mock.timers.enable({ apis: ['setTimeout'] })
      let down = true
      const flaky: UsageCounters = Object.create(counters) as UsageCounters
      flaky.add = (...args) =>
        down ? Promise.reject(new Error('Connection is closed.')) : counters.add(...args)
      const owing = new QuotaGate({ counters: flaky, log: silentLogger, clock: () => now })
      // January, past the limit by the overage; what flowed last fails to be counted.
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES + RESPONSE_OVERAGE_BYTES)
      const january = owing.responseMeter(FREE)
      january.add(RESPONSE_BATCH_BYTES)
      january.finish()
      await owing.drain()
      // February: a new month, at zero, with a response streaming when January's bytes land.
      now = new Date('2099-02-01T00:00:30.000Z')
      const cut: string[] = []
      owing.responseMeter(FREE, () => cut.push('february stream'))
      down = false
      t.mock.timers.tick(OWED_RETRY_MS)
      await owing.drain()
      assert.equal(owing.owedBytes, 0, "January's bytes were counted")
      assert.deepEqual(cut, [])
      owing.close()
    })

    it('counts response bytes the counters refused once they work again (found by a review)', async (t) => {
      // Redis restarting: each 1 MiB batch of a streaming answer was dropped for good.
      t.mock.timers.enable({ apis: ['setTimeout'] })
      let down = true
      const flaky: UsageCounters = Object.create(counters) as UsageCounters
      flaky.add = (...args) =>
        down ? Promise.reject(new Error('Connection is closed.')) : counters.add(...args)
      const owing = new QuotaGate({ counters: flaky, log: silentLogger, clock: () => now })
      const meter = owing.responseMeter(FREE)
      meter.add(RESPONSE_BATCH_BYTES)
      meter.add(RESPONSE_BATCH_BYTES)
      meter.finish()
      await owing.drain()
      assert.equal(owing.owedBytes, 2 * RESPONSE_BATCH_BYTES)
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 0)
      t.mock.timers.tick(OWED_RETRY_MS)
      await owing.drain()
      assert.equal(owing.owedBytes, 2 * RESPONSE_BATCH_BYTES, 'still down: still owed')
      down = false
      now = new Date('2099-02-01T00:00:30.000Z') // counted into January, when they flowed
      t.mock.timers.tick(OWED_RETRY_MS)
      await owing.drain()
      assert.equal(owing.owedBytes, 0)
      const january = new Date('2099-01-31T23:59:00.000Z')
      assert.equal(
        await counters.get(FREE.id, 'bandwidth_bytes', january),
        2 * RESPONSE_BATCH_BYTES,
      )
      owing.close()
    })

    it('counts the bytes of open responses of a tunnel before each fills a batch of its own (found by a hostile review)', async (t) => {
      // Each response kept up to 1 MiB uncounted until its end: a tunnel's forty streams held
      // open with 1 MiB less a byte each moved 40 MiB that no counter saw and nothing cut,
      // however far past its limit the month was, and a crash forgot them all.
      t.mock.timers.enable({ apis: ['setTimeout'] })
      await counters.set(FREE.id, 'bandwidth_bytes', FREE_BYTES - 1)
      const cut: number[] = []
      const open = Array.from({ length: 40 }, (_, i) => gate.responseMeter(FREE, () => cut.push(i)))
      for (const meter of open) meter.add(RESPONSE_BATCH_BYTES - 1)
      await gate.drain()
      const used = await counters.get(FREE.id, 'bandwidth_bytes')
      assert.ok(
        used >= FREE_BYTES - 1 + 39 * (RESPONSE_BATCH_BYTES - 1),
        `${FREE_BYTES - 1 + 40 * (RESPONSE_BATCH_BYTES - 1) - used} bytes that flowed are not counted`,
      )
      assert.equal(cut.length, 40, 'every response is cut once the month is the overage past')
    })

    it("counts a slow stream's bytes within a second, not at its end (found by a hostile review)", async (t) => {
      // A GET stream sending a small event now and then was counted only at its end (hours
      // later, the next month, or never when the node crashed meanwhile).
      t.mock.timers.enable({ apis: ['setTimeout'] })
      const meter = gate.responseMeter(FREE)
      meter.add(300)
      meter.add(200)
      t.mock.timers.tick(RESPONSE_WAIT_MS)
      await new Promise((resolve) => setImmediate(resolve))
      await gate.drain()
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 500)
      meter.add(100)
      meter.finish()
      await gate.drain()
      assert.equal(await counters.get(FREE.id, 'bandwidth_bytes'), 600)
    })

    it('keeps serving when the warning listener throws or rejects', async () => {
      const throwing = new QuotaGate({
        counters,
        log: silentLogger,
        clock: () => now,
        onQuotaWarning: () => {
          throw new Error('listener broke')
        },
      })
      const rejecting = new QuotaGate({
        counters,
        log: silentLogger,
        clock: () => now,
        onQuotaWarning: () => Promise.reject(new Error('listener broke later')),
      })
      await counters.set(FREE.id, 'tool_calls', 79_999)
      assert.equal(await admitted(throwing, FREE, 1, 1), null)
      await counters.set(FREE.id, 'tool_calls', 79_999)
      assert.equal(await admitted(rejecting, FREE, 1, 1), null)
      assert.equal(await counters.get(FREE.id, 'tool_calls'), 80_000)
    })
  })
}

describe('quota refusal words', () => {
  it('writes bandwidth as sold (decimal GB) and resets as a UTC minute', () => {
    assert.equal(formatBytes(5_000_000_000), '5 GB')
    assert.equal(formatBytes(100_000_000_000), '100 GB')
    assert.equal(formatBytes(1_500_000_000), '1,500,000,000 bytes')
    assert.equal(formatBytes(999), '999 bytes')
    assert.equal(formatReset(new Date('2026-12-01T00:00:00Z')), '2026-12-01 00:00 UTC')
  })
})
