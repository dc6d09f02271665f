/**
 * Per-method metrics while the database stalls (store/bounded-pg-pool.ts), on SQLite always and
 * PostgreSQL when TEST_DATABASE_URL is set, the stall played by a Kysely plugin: a write whose
 * query timed out may have been added on the server all the same, so it is never written again
 * (row by row, it counted each call twice); one that never reached the database (no connection
 * in time) and the batches after it are kept for the next write, which counts them once. During
 * the stall a flush stops at its first failed statement: before, it tried every row of the batch
 * alone, each waiting the full bound, which held the next flushes and burrowd's shutdown.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import type { Kysely, KyselyPlugin } from 'kysely'
import { CallMetrics } from '../../src/governance/call-metrics.js'
import type { CallRecord } from '../../src/quota/call-history.js'
import { QUERY_TIMEOUT_MESSAGE } from '../../src/store/bounded-pg-pool.js'
import { openStore } from '../../src/store/open-store.js'
import type { Database } from '../../src/store/schema.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const AT = new Date('2026-03-02T10:07:30.000Z')

/** pg-pool's message when no connection was had in time: the query was never sent. */
const CONNECT_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

for (const backend of testBackends()) {
  describe(`call metrics on ${backend.name} while the database stalls`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    /** How the next statements fail: after running (timed out), before (never sent), or not. */
    let stall: 'after' | 'before' | null
    let statements: number
    let db: Kysely<Database>
    const open: CallMetrics[] = []

    const plugin: KyselyPlugin = {
      transformQuery(args) {
        statements++
        if (stall === 'before') throw new Error(CONNECT_TIMEOUT_MESSAGE)
        return args.node
      },
      async transformResult(args) {
        if (stall === 'after') throw new Error(QUERY_TIMEOUT_MESSAGE)
        return args.result
      },
    }

    const metrics = (capacity?: number) => {
      const m = new CallMetrics(db, { log: silentLogger, flushMs: 3_600_000, capacity })
      open.push(m)
      return m
    }

    const call = (tool = 'search', at = AT): CallRecord => ({
      tunnelId,
      at,
      method: 'tools/call',
      tool,
      status: 200,
      policyCode: null,
      durationMs: 12,
    })

    const counts = async (): Promise<number[]> =>
      (
        await store.db
          .selectFrom('call_metrics')
          .select('count')
          .where('tunnel_id', '=', tunnelId)
          .execute()
      ).map((r) => Number(r.count))

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'm@example.com', slug: 'metrics' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'm' })).tunnel.id
      db = store.db.withPlugin(plugin)
      stall = null
      statements = 0
    })

    afterEach(async () => {
      stall = null
      for (const m of open.splice(0)) await m.close()
      await store.close()
      await database.drop()
    })

    it('does not write again a batch whose write timed out: it may have been added', async () => {
      const m = metrics()
      m.record(call())
      stall = 'after'
      await m.flush()
      assert.equal(statements, 1, 'one statement, not one more per row')
      stall = null
      await m.flush()
      assert.deepEqual(await counts(), [1, 1, 1])
    })

    it('keeps what never reached the database for the next write', async () => {
      const m = metrics()
      // 300 rows: two statements' worth.
      for (let i = 0; i < 100; i++) m.record(call(`tool-${i}`))
      stall = 'before'
      await m.flush()
      assert.equal(statements, 1, 'the flush stops at its first failed statement')
      stall = null
      await m.flush()
      const written = await counts()
      assert.equal(written.length, 300)
      assert.ok(written.every((n) => n === 1))
    })

    it('keeps the batches after one that timed out, counting them once', async () => {
      const m = metrics()
      for (let i = 0; i < 100; i++) m.record(call(`tool-${i}`))
      stall = 'after'
      await m.flush()
      stall = null
      m.record(call('tool-0'))
      await m.flush()
      const written = await counts()
      // The first statement's 200 rows were added though it failed; the other 100 come once.
      assert.equal(written.length, 300)
      assert.equal(
        written.reduce((a, b) => a + b, 0),
        303,
      )
    })

    it('keeps at most its capacity of rows while the database stays away', async () => {
      const m = metrics(100)
      stall = 'before'
      // Hours of an outage: every 5-minute period brings rows of its own.
      for (let period = 0; period < 20; period++) {
        const at = new Date(AT.getTime() + period * 5 * 60_000)
        for (let i = 0; i < 25; i++) m.record(call(`tool-${i}`, at))
        await m.flush()
        assert.ok(m.pending <= 100, `${m.pending} rows held, past the capacity of 100`)
      }
      stall = null
      await m.flush()
      assert.equal(m.pending, 0)
      assert.ok((await counts()).length <= 100)
    })
  })
}
