/**
 * Call history on every test database: records are written in batches off the request's path,
 * a full queue drops and counts instead of growing, and records of a tunnel deleted meanwhile
 * do not cost the rest of their batch.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import type { PlanId } from '../../src/plans.js'
import { CallHistoryWriter, type CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const NOW = new Date('2026-03-10T12:00:00.000Z')

function record(tunnelId: string, overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    tunnelId,
    at: NOW,
    method: 'tools/call',
    tool: 'echo',
    status: 200,
    policyCode: null,
    durationMs: 1.6,
    ...overrides,
  }
}

for (const backend of testBackends()) {
  describe(`call history on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let writer: CallHistoryWriter | null

    /** An account on `plan` with one tunnel; returns the tunnel id. */
    async function tunnelOn(slug: string, plan: PlanId): Promise<string> {
      const account = await store.createAccount({ email: `${slug}@example.com`, slug, plan })
      return (await store.createTunnel({ accountId: account.id, name: slug })).tunnel.id
    }

    const rows = () =>
      store.db.selectFrom('call_history').selectAll().orderBy('at').orderBy('method').execute()

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      writer = null
    })

    afterEach(async () => {
      await writer?.close()
      await store.close()
      await database.drop()
    })

    it('writes what the edge records, with every field', async () => {
      const tunnelId = await tunnelOn('acme', 'free')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      writer.record(record(tunnelId))
      writer.record(
        record(tunnelId, {
          method: 'initialize',
          tool: null,
          status: 429,
          policyCode: 'session_limit',
          durationMs: 0.2,
        }),
      )
      assert.equal((await rows()).length, 0, 'written in the background, not at once')
      await writer.flush()
      const written = await rows()
      assert.deepEqual(
        written.map((r) => [
          r.tunnel_id,
          r.at,
          r.method,
          r.tool,
          r.status,
          r.policy_code,
          Number(r.duration_ms), // bigint on PostgreSQL: read as text
        ]),
        [
          [tunnelId, NOW.toISOString(), 'initialize', null, 429, 'session_limit', 0],
          [tunnelId, NOW.toISOString(), 'tools/call', 'echo', 200, null, 2],
        ],
      )
      // Time-ordered: the arrival in milliseconds (12 hex digits), then 12 random ones.
      const ms = NOW.getTime().toString(16).padStart(12, '0')
      assert.ok(written.every((r) => new RegExp(`^call_${ms}[0-9a-f]{12}$`).test(r.id)))
      assert.equal(new Set(written.map((r) => r.id)).size, 2)
    })

    it('writes every column of every record, batch after batch of the same size', async () => {
      const tunnelId = await tunnelOn('acme', 'free')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      const full = (n: number): CallRecord => ({
        id: `call_${String(n).padStart(24, '0')}`,
        tunnelId,
        at: new Date(NOW.getTime() + n),
        method: `method-${n}`,
        tool: `tool-${n}`,
        status: 200 + n,
        policyCode: `code-${n}`,
        durationMs: 10 + n,
        sessionId: `session-${n}`,
        rpcId: `"rpc-${n}"`,
        agent: `agent-${n}`,
        outcome: n % 2 === 0 ? 'ok' : 'error',
        bytesIn: 1000 + n,
        bytesOut: 2000 + n,
        requestBody: `{"request":${n}}`,
        responseBody: `{"response":${n}}`,
        bodiesCut: n % 2 === 1,
        continues: `call_continues_${n}`,
      })
      for (const batch of [
        [1, 2, 3],
        [4, 5, 6],
      ]) {
        for (const n of batch) writer.record(full(n))
        await writer.flush()
      }
      const written = await store.db.selectFrom('call_history').selectAll().orderBy('id').execute()
      assert.deepEqual(
        written.map((r) => ({
          ...r,
          duration_ms: Number(r.duration_ms),
          bytes_in: Number(r.bytes_in),
          bytes_out: Number(r.bytes_out),
        })),
        [1, 2, 3, 4, 5, 6].map((n) => ({
          id: `call_${String(n).padStart(24, '0')}`,
          tunnel_id: tunnelId,
          at: new Date(NOW.getTime() + n).toISOString(),
          method: `method-${n}`,
          tool: `tool-${n}`,
          status: 200 + n,
          policy_code: `code-${n}`,
          duration_ms: 10 + n,
          session_id: `session-${n}`,
          rpc_id: `"rpc-${n}"`,
          agent: `agent-${n}`,
          outcome: n % 2 === 0 ? 'ok' : 'error',
          bytes_in: 1000 + n,
          bytes_out: 2000 + n,
          request_body: `{"request":${n}}`,
          response_body: `{"response":${n}}`,
          bodies_cut: n % 2,
          continues: `call_continues_${n}`,
        })),
      )
    })

    it('drops and counts records beyond its capacity instead of holding them', async () => {
      const tunnelId = await tunnelOn('acme', 'free')
      writer = new CallHistoryWriter(store.db, {
        log: silentLogger,
        capacity: 5,
        batchSize: 1000,
        flushMs: 60_000,
      })
      for (let i = 0; i < 8; i++) writer.record(record(tunnelId, { durationMs: i }))
      assert.equal(writer.queued, 5)
      assert.equal(writer.dropped, 3)
      await writer.flush()
      assert.equal((await rows()).length, 5)
      // Room again once written.
      writer.record(record(tunnelId))
      assert.equal(writer.dropped, 3)
    })

    it('writes full batches without waiting for the timer, several in a row', async () => {
      const tunnelId = await tunnelOn('acme', 'free')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, batchSize: 3, flushMs: 60_000 })
      for (let i = 0; i < 7; i++) writer.record(record(tunnelId))
      await writer.close()
      assert.equal((await rows()).length, 7)
      writer.record(record(tunnelId))
      assert.equal(writer.dropped, 1, 'a closed writer takes nothing more')
    })

    it('keeps the rest of a batch when one of its tunnels was deleted', async () => {
      const kept = await tunnelOn('acme', 'free')
      const gone = await tunnelOn('gone', 'free')
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 60_000 })
      writer.record(record(kept))
      writer.record(record(gone))
      await store.db.deleteFrom('tunnels').where('id', '=', gone).execute()
      await writer.flush()
      assert.deepEqual(
        (await rows()).map((r) => r.tunnel_id),
        [kept],
      )
      assert.equal(writer.dropped, 0)
    })
  })
}
