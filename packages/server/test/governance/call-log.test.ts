/**
 * The call log on SQLite always and PostgreSQL when TEST_DATABASE_URL is set, over rows written by
 * the real call-history writer: newest first; filters by tool, method, HTTP status, outcome and
 * time, alone and together, compared with the same filter applied to what was recorded; paging
 * with the cursor through every call exactly once; page sizes held to 1 … 200; one call by id
 * only within its tunnel; rows from before outcomes were stored; a filtered page looks through
 * at most `CALLS_SCANNED_PER_PAGE` calls and says where to go on.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import {
  CALLS_SCANNED_PER_PAGE,
  getCall,
  listCalls,
  type CallFilter,
} from '../../src/governance/call-log.js'
import { CallHistoryWriter, newCallId, type CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const BASE = Date.parse('2026-02-10T08:00:00.000Z')
const CALLS = 250

/** Call `i` of the tunnel: a mix of tools, methods, outcomes and statuses, one second apart. */
function record(tunnelId: string, i: number): Required<Pick<CallRecord, 'id'>> & CallRecord {
  const at = new Date(BASE + i * 1000)
  const refused = i % 10 === 9
  const base = {
    id: newCallId(at),
    tunnelId,
    at,
    durationMs: i,
    sessionId: `session-${i % 4}`,
    rpcId: JSON.stringify(i),
  }
  if (refused) {
    return {
      ...base,
      method: 'tools/call',
      tool: 'search',
      status: 429,
      policyCode: 'rate_limited',
      outcome: 'refused',
    }
  }
  if (i % 3 === 2) {
    return {
      ...base,
      method: 'tools/list',
      tool: null,
      status: 200,
      policyCode: null,
      outcome: 'ok',
    }
  }
  return {
    ...base,
    method: 'tools/call',
    tool: i % 3 === 0 ? 'search' : 'fetch',
    status: i % 7 === 0 ? 500 : 200,
    policyCode: null,
    outcome: i % 3 === 1 ? 'error' : 'ok',
  }
}

/** What `filter` should select of `records`, newest first (without cursor and limit). */
function expected(records: readonly (CallRecord & { id: string })[], filter: CallFilter) {
  return records
    .filter((r) => filter.tool === undefined || r.tool === filter.tool)
    .filter((r) => filter.method === undefined || r.method === filter.method)
    .filter((r) =>
      filter.status === undefined
        ? true
        : typeof filter.status === 'number'
          ? r.status === filter.status
          : r.outcome === filter.status,
    )
    .filter((r) => filter.since === undefined || r.at >= filter.since)
    .map((r) => r.id)
    .sort()
    .reverse()
}

for (const backend of testBackends()) {
  describe(`call log on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnelId: string
    let otherId: string
    let records: (CallRecord & { id: string })[]

    /** Every page of `filter` with `limit`, checked to be well formed. */
    async function allPages(filter: CallFilter, limit: number): Promise<string[]> {
      const ids: string[] = []
      let cursor: string | undefined
      for (let pages = 0; pages < 1000; pages++) {
        const page = await listCalls(store.db, tunnelId, {
          ...filter,
          limit,
          ...(cursor === undefined ? {} : { cursor }),
        })
        assert.ok(page.calls.length <= limit)
        ids.push(...page.calls.map((c) => c.id))
        if (page.nextCursor === null) return ids
        assert.equal(page.calls.length, limit, 'a page before the last is full')
        assert.equal(page.nextCursor, page.calls[page.calls.length - 1]!.id)
        cursor = page.nextCursor
      }
      throw new Error('paging did not end')
    }

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'l@example.com', slug: 'log' })
      tunnelId = (await store.createTunnel({ accountId: account.id, name: 'l' })).tunnel.id
      otherId = (await store.createTunnel({ accountId: account.id, name: 'o' })).tunnel.id
      records = Array.from({ length: CALLS }, (_, i) => record(tunnelId, i))
      const writer = new CallHistoryWriter(store.db, { log: silentLogger, batchSize: 100 })
      // Recorded out of order, as several edges would: the id orders them.
      for (const r of [...records].reverse()) writer.record(r)
      writer.record({ ...record(otherId, 1000), tool: 'search' })
      await writer.close()
      assert.equal(writer.dropped, 0)
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('lists 50 newest first by default, with the fields recorded', async () => {
      const page = await listCalls(store.db, tunnelId)
      assert.equal(page.calls.length, 50)
      assert.deepEqual(
        page.calls.map((c) => c.id),
        expected(records, {}).slice(0, 50),
      )
      assert.equal(page.nextCursor, page.calls[49]!.id)
      const newest = records[CALLS - 1]!
      assert.deepEqual(page.calls[0], {
        id: newest.id,
        at: newest.at.toISOString(),
        sessionId: newest.sessionId,
        rpcId: newest.rpcId,
        method: newest.method,
        tool: newest.tool,
        status: newest.status,
        outcome: newest.outcome,
        policyCode: newest.policyCode,
        durationMs: newest.durationMs,
        bytesIn: null,
        bytesOut: null,
        requestBody: null,
        responseBody: null,
        bodiesCut: false,
        continues: null,
        agent: null,
      })
    })

    it('filters by tool, method, status, outcome and time, alone and together', async () => {
      const filters: CallFilter[] = [
        { tool: 'search' },
        { tool: 'fetch' },
        { method: 'tools/list' },
        { status: 500 },
        { status: 429 },
        { status: 'ok' },
        { status: 'error' },
        { status: 'refused' },
        { since: new Date(BASE + 200_000) },
        { tool: 'search', status: 'refused' },
        { method: 'tools/call', status: 200, since: new Date(BASE + 100_500) },
        { tool: 'nothing-called-this' },
        { tool: "search' OR '1'='1" },
        { since: new Date(BASE + CALLS * 1000) },
      ]
      for (const filter of filters) {
        const want = expected(records, filter)
        assert.deepEqual(await allPages(filter, 200), want, JSON.stringify(filter))
      }
    })

    it('pages through every call exactly once, whatever the page size', async () => {
      const all = expected(records, {})
      for (const limit of [1, 7, 50, 200]) {
        const ids = await allPages({}, limit)
        assert.deepEqual(ids, all, `limit ${limit}`)
      }
      assert.deepEqual(await allPages({ tool: 'fetch' }, 9), expected(records, { tool: 'fetch' }))
    })

    it('holds the page size from 1 to 200', async () => {
      for (const [limit, size] of [
        [0, 1],
        [-5, 1],
        [1, 1],
        [200, 200],
        [201, 200],
        [1_000_000, 200],
      ] as const) {
        const page = await listCalls(store.db, tunnelId, { limit })
        assert.equal(page.calls.length, size, `limit ${limit}`)
        assert.notEqual(page.nextCursor, null)
      }
    })

    it('ends at a cursor below every call, and past the last page', async () => {
      assert.deepEqual(await listCalls(store.db, tunnelId, { cursor: 'call_' }), {
        calls: [],
        nextCursor: null,
      })
      const oldest = expected(records, {}).at(-1)!
      const last = await listCalls(store.db, tunnelId, { cursor: oldest })
      assert.deepEqual(last, { calls: [], nextCursor: null })
    })

    it('never shows another tunnel’s calls, by list or by id', async () => {
      const theirs = await listCalls(store.db, otherId)
      assert.equal(theirs.calls.length, 1)
      const id = theirs.calls[0]!.id
      assert.equal(await getCall(store.db, tunnelId, id), undefined)
      assert.deepEqual(await getCall(store.db, otherId, id), theirs.calls[0])
      const mine = await allPages({}, 200)
      assert.ok(!mine.includes(id))
    })

    it('looks through at most CALLS_SCANNED_PER_PAGE calls for a filtered page', async () => {
      // A history longer than a page may look through, whose only `rare` call is its oldest.
      const writer = new CallHistoryWriter(store.db, { log: silentLogger, batchSize: 500 })
      const many = Array.from({ length: CALLS_SCANNED_PER_PAGE + 100 }, (_, i) => ({
        ...record(otherId, 2000 + i),
        tool: i === 0 ? 'rare' : 'fetch',
      }))
      for (const r of many) writer.record(r)
      await writer.close()
      const newestFirst = many.map((r) => r.id).reverse()
      const edge = newestFirst[CALLS_SCANNED_PER_PAGE - 1]!

      // Before, the first page read every call of the tunnel to find it.
      const first = await listCalls(store.db, otherId, { tool: 'rare' })
      assert.deepEqual(first, { calls: [], nextCursor: edge })
      const second = await listCalls(store.db, otherId, { tool: 'rare', cursor: edge })
      assert.deepEqual(
        second.calls.map((c) => c.id),
        [many[0]!.id],
      )
      assert.equal(second.nextCursor, null)
      // Calls since a time the looked-through calls already go past end there.
      const since = many[CALLS_SCANNED_PER_PAGE]!.at
      assert.deepEqual(await listCalls(store.db, otherId, { tool: 'rare', since }), {
        calls: [],
        nextCursor: null,
      })
      // A filter that matches enough fills its page, as before; no filter is not bounded.
      const full = await listCalls(store.db, otherId, { tool: 'fetch', limit: 200 })
      assert.equal(full.calls.length, 200)
      assert.equal(full.nextCursor, full.calls[199]!.id)
      assert.equal(
        (await listCalls(store.db, otherId, { cursor: edge, limit: 200 })).calls.length,
        101,
      )
    })

    it('finds one call by id, and nothing for an unknown one', async () => {
      const r = records[42]!
      const call = await getCall(store.db, tunnelId, r.id)
      assert.equal(call?.id, r.id)
      assert.equal(call?.tool, r.tool)
      assert.equal(await getCall(store.db, tunnelId, 'call_ffffffffffff'), undefined)
      assert.equal(await getCall(store.db, tunnelId, "' or 1=1 --"), undefined)
    })

    it('shows bodies and byte counts as stored', async () => {
      const at = new Date(BASE + 10 * 60_000)
      const writer = new CallHistoryWriter(store.db, { log: silentLogger })
      writer.record({
        id: newCallId(at),
        tunnelId: otherId,
        at,
        method: 'tools/call',
        tool: 'echo',
        status: 200,
        policyCode: null,
        durationMs: 3.6,
        bytesIn: 120,
        bytesOut: 4096,
        requestBody: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
        responseBody: '{"jsonrpc":"2.0","id":1,"result":{"x":"[redacted]"}}',
        bodiesCut: true,
      })
      await writer.close()
      const [call] = (await listCalls(store.db, otherId, { tool: 'echo' })).calls
      assert.equal(call!.durationMs, 4)
      assert.equal(call!.bytesIn, 120)
      assert.equal(call!.bytesOut, 4096)
      assert.equal(call!.requestBody, '{"jsonrpc":"2.0","id":1,"method":"tools/call"}')
      assert.equal(call!.responseBody, '{"jsonrpc":"2.0","id":1,"result":{"x":"[redacted]"}}')
      assert.equal(call!.bodiesCut, true)
      assert.equal(call!.outcome, 'ok')
    })

    it('gives rows from before outcomes were stored one from their policy code', async () => {
      const at = (s: number) => new Date(BASE + 3_600_000 + s * 1000)
      for (const [s, policy] of [
        [1, null],
        [2, 'quota_exceeded'],
      ] as const) {
        await store.db
          .insertInto('call_history')
          .values({
            id: newCallId(at(s)),
            tunnel_id: otherId,
            at: at(s).toISOString(),
            method: 'tools/call',
            tool: 'legacy',
            status: policy === null ? 200 : 429,
            policy_code: policy,
            duration_ms: 1,
            outcome: null,
          })
          .execute()
      }
      const page = await listCalls(store.db, otherId, { tool: 'legacy' })
      assert.deepEqual(
        page.calls.map((c) => [c.policyCode, c.outcome]),
        [
          ['quota_exceeded', 'refused'],
          [null, 'ok'],
        ],
      )
    })
  })
}
