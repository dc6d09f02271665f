/**
 * Per-method metrics on SQLite always and PostgreSQL when TEST_DATABASE_URL is set: each call
 * adds to a 5-minute, an hourly and a daily row per method, tool and outcome (the refusal's policy
 * code before the outcome), with its latency in the bucket `latency-buckets.ts` gives; flushes and
 * several nodes add to the stored rows; concurrent flushes count each call once; more rows than
 * one statement takes are all written; a row for a tunnel that is gone does not lose the rest;
 * the pairs an agent invents are bound per day, in every span alike.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { CallMetrics, MAX_PAIRS_PER_DAY, OTHER } from '../../src/governance/call-metrics.js'
import { bucketOf, LATENCY_BUCKETS } from '../../src/governance/latency-buckets.js'
import type { CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

/** 10:07:30, so the 5-minute period starts at 10:05 and the hour at 10:00. */
const AT = new Date('2026-03-02T10:07:30.000Z')

interface Row {
  readonly span: string
  readonly periodStart: string
  readonly method: string
  readonly tool: string
  readonly outcome: string
  readonly count: number
  /** Non-zero latency buckets, `{index: count}`. */
  readonly buckets: Record<number, number>
}

for (const backend of testBackends()) {
  describe(`call metrics on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    const open: CallMetrics[] = []

    /** A CallMetrics that only writes when flushed (its timer is an hour). */
    const metrics = () => {
      const m = new CallMetrics(store.db, { log: silentLogger, flushMs: 3_600_000 })
      open.push(m)
      return m
    }

    const call = (over: Partial<CallRecord> = {}): CallRecord => ({
      tunnelId,
      at: AT,
      method: 'tools/call',
      tool: 'search',
      status: 200,
      policyCode: null,
      durationMs: 12,
      ...over,
    })

    const rows = async (tunnel = tunnelId): Promise<Row[]> => {
      const found = await store.db
        .selectFrom('call_metrics')
        .selectAll()
        .where('tunnel_id', '=', tunnel)
        .orderBy('span')
        .orderBy('method')
        .orderBy('tool')
        .orderBy('outcome')
        .execute()
      return found.map((r) => {
        const buckets: Record<number, number> = {}
        for (let i = 0; i < LATENCY_BUCKETS; i++) {
          const n = Number(r[`h${i}`])
          if (n !== 0) buckets[i] = n
        }
        return {
          span: r.span,
          periodStart: r.period_start,
          method: r.method,
          tool: r.tool,
          outcome: r.outcome,
          count: Number(r.count),
          buckets,
        }
      })
    }

    const total = async (span: string) =>
      (await rows()).filter((r) => r.span === span).reduce((n, r) => n + r.count, 0)

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'm@example.com', slug: 'metrics' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'm' })).tunnel.id
    })

    afterEach(async () => {
      for (const m of open.splice(0)) await m.close()
      await store.close()
      await database.drop()
    })

    it('counts a call in its 5-minute, hourly and daily periods, its latency in its bucket', async () => {
      const m = metrics()
      m.record(call())
      await m.flush()
      assert.deepEqual(await rows(), [
        {
          span: '1d',
          periodStart: '2026-03-02T00:00:00.000Z',
          method: 'tools/call',
          tool: 'search',
          outcome: 'ok',
          count: 1,
          buckets: { [bucketOf(12)]: 1 },
        },
        {
          span: '1h',
          periodStart: '2026-03-02T10:00:00.000Z',
          method: 'tools/call',
          tool: 'search',
          outcome: 'ok',
          count: 1,
          buckets: { [bucketOf(12)]: 1 },
        },
        {
          span: '5m',
          periodStart: '2026-03-02T10:05:00.000Z',
          method: 'tools/call',
          tool: 'search',
          outcome: 'ok',
          count: 1,
          buckets: { [bucketOf(12)]: 1 },
        },
      ])
    })

    it('keys rows by outcome, the policy code first, and by tool ("" for none)', async () => {
      const m = metrics()
      m.record(call({ outcome: 'ok' }))
      m.record(call({ outcome: 'error', durationMs: 0 }))
      m.record(call({ outcome: 'refused', policyCode: 'rate_limited', status: 429 }))
      m.record(call({ policyCode: 'tool_denied', status: 403 }))
      m.record(call({ method: 'tools/list', tool: null, durationMs: 200_000 }))
      await m.flush()
      const fiveMinutes = (await rows()).filter((r) => r.span === '5m')
      assert.deepEqual(
        fiveMinutes.map((r) => [r.method, r.tool, r.outcome, r.count, r.buckets]),
        [
          ['tools/call', 'search', 'error', 1, { 0: 1 }],
          ['tools/call', 'search', 'ok', 1, { [bucketOf(12)]: 1 }],
          ['tools/call', 'search', 'rate_limited', 1, { [bucketOf(12)]: 1 }],
          ['tools/call', 'search', 'tool_denied', 1, { [bucketOf(12)]: 1 }],
          ['tools/list', '', 'ok', 1, { [LATENCY_BUCKETS - 1]: 1 }],
        ],
      )
    })

    it('cuts a hostile tool name to 200 characters, counting its calls together', async () => {
      const m = metrics()
      m.record(call({ tool: 'x'.repeat(100_000) }))
      m.record(call({ tool: `${'x'.repeat(200)}-other-suffix` }))
      await m.flush()
      const [row] = (await rows()).filter((r) => r.span === '5m')
      assert.equal(row!.tool, 'x'.repeat(200))
      assert.equal(row!.count, 2)
    })

    it('adds each flush to the stored rows, and two nodes to each other', async () => {
      const a = metrics()
      const b = metrics()
      for (let i = 0; i < 3; i++) a.record(call())
      await a.flush()
      for (let i = 0; i < 2; i++) a.record(call({ durationMs: 1 }))
      for (let i = 0; i < 4; i++) b.record(call({ durationMs: 1 }))
      await Promise.all([a.flush(), b.flush()])
      for (const row of await rows()) {
        assert.equal(row.count, 9)
        assert.deepEqual(row.buckets, { [bucketOf(12)]: 3, [bucketOf(1)]: 6 })
      }
      await a.flush()
      assert.equal(await total('5m'), 9, 'a flush with nothing gathered writes nothing')
    })

    it('counts every call once under concurrent records and flushes', async () => {
      const m = metrics()
      const flushes: Promise<void>[] = []
      for (let i = 0; i < 300; i++) {
        m.record(call({ tool: `t${i % 7}`, durationMs: i }))
        if (i % 25 === 0) flushes.push(m.flush())
      }
      flushes.push(m.flush(), m.flush())
      await Promise.all(flushes)
      await m.flush()
      assert.equal(await total('5m'), 300)
      assert.equal(await total('1h'), 300)
      assert.equal(await total('1d'), 300)
    })

    it('writes more rows than one statement holds', async () => {
      const m = metrics()
      for (let i = 0; i < 450; i++) m.record(call({ method: `method/${i}`, tool: null }))
      await m.flush()
      const all = await rows()
      assert.equal(all.length, 1350)
      assert.ok(all.every((r) => r.count === 1))
    })

    it('counts the method and tool pairs an agent invents past the bound together', async () => {
      const m = metrics()
      for (let i = 0; i < MAX_PAIRS_PER_DAY + 50; i++) {
        m.record(call({ method: `x/${i}`, tool: null }))
      }
      m.record(call({ method: 'x/0', tool: null }))
      await m.flush()
      for (const span of ['5m', '1h', '1d']) {
        const ofSpan = (await rows()).filter((r) => r.span === span)
        assert.equal(ofSpan.length, MAX_PAIRS_PER_DAY + 1)
        const other = ofSpan.find((r) => r.method === OTHER)
        assert.equal(other?.count, 50)
        assert.equal(other?.tool, OTHER)
        assert.equal(ofSpan.find((r) => r.method === 'x/0')?.count, 2, 'known pairs still count')
      }
    })

    it('bounds the pairs per day in every span alike, a new day starting afresh', async () => {
      // An agent inventing new names every hour: later hours of the day find the bound spent.
      const m = metrics()
      const at = (hour: number, minute = 7) =>
        new Date(Date.parse('2026-03-02T00:00:00.000Z') + hour * 3_600_000 + minute * 60_000)
      const perHour = MAX_PAIRS_PER_DAY / 2
      for (let hour = 0; hour < 4; hour++) {
        for (let i = 0; i < perHour; i++) {
          m.record(call({ at: at(hour), tool: `h${hour}-${i}`, durationMs: i }))
        }
        m.record(call({ at: at(hour, 40), tool: 'h0-0' }))
      }
      m.record(call({ at: at(24), tool: 'next-day' }))
      await m.flush()
      const all = await rows()
      const of = (span: string, day = '2026-03-02') =>
        all.filter((r) => r.span === span && r.periodStart.startsWith(day))
      for (const span of ['5m', '1h', '1d']) {
        const pairs = new Set(of(span).map((r) => r.tool))
        assert.equal(pairs.size, MAX_PAIRS_PER_DAY + 1, `${span}: the bound and (other)`)
        assert.ok(!pairs.has('h2-0') && pairs.has('h1-499'), span)
        const other = of(span).filter((r) => r.tool === OTHER)
        assert.equal(
          other.reduce((n, r) => n + r.count, 0),
          2 * perHour,
          `${span}: the last two hours' names`,
        )
      }
      // A day's row of a pair is the sum of its hourly and 5-minute rows, latencies too.
      const sums = (span: string) => {
        const by = new Map<string, { count: number; buckets: Record<number, number> }>()
        for (const r of of(span)) {
          const sum = by.get(r.tool) ?? { count: 0, buckets: {} }
          sum.count += r.count
          for (const [b, n] of Object.entries(r.buckets)) {
            sum.buckets[Number(b)] = (sum.buckets[Number(b)] ?? 0) + n
          }
          by.set(r.tool, sum)
        }
        return by
      }
      assert.deepEqual(sums('1h'), sums('1d'))
      assert.deepEqual(sums('5m'), sums('1d'))
      assert.equal(sums('1d').get('h0-0')?.count, 5)
      assert.deepEqual(
        of('1d', '2026-03-03').map((r) => r.tool),
        ['next-day'],
      )
    })

    it('keeps the rows of live tunnels when one of a flush is gone', async () => {
      const m = metrics()
      m.record(call({ tunnelId: 'tun_deleted_meanwhile' }))
      m.record(call())
      await m.flush()
      assert.equal(await total('5m'), 1)
      assert.deepEqual(await rows('tun_deleted_meanwhile'), [])
    })

    it('writes what is left on close', async () => {
      const m = metrics()
      m.record(call())
      await m.close()
      assert.equal(await total('1h'), 1)
    })
  })
}
