/**
 * The governed call-history sink on SQLite always and PostgreSQL when TEST_DATABASE_URL is set:
 * each record reaches the history writer, the per-method metrics and the live tail once, under
 * one id. And what the edge gives it (through `ExchangeRecord`, with the tunnel's compiled
 * policy) is already redacted, or without bodies in zero-knowledge mode, in the database and on
 * the live tail alike: no secret is stored or shown.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  isBodyProblem,
  parseJsonRpcText,
  readJsonRpcBody,
  silentLogger,
  type JsonRpcBody,
} from '@burrow/protocol'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { listCalls } from '../../src/governance/call-log.js'
import { CallMetrics } from '../../src/governance/call-metrics.js'
import { GovernedHistory } from '../../src/governance/governed-history.js'
import { LiveTail, type TailEvent } from '../../src/governance/live-tail.js'
import { metricsReport } from '../../src/governance/metrics-report.js'
import { isPolicyProblem, parsePolicy } from '../../src/governance/parse-policy.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'
import { CallHistoryWriter, type CallRecord } from '../../src/quota/call-history.js'
import { openStore } from '../../src/store/open-store.js'
import type { Store } from '../../src/store/store.js'
import { testBackends, type TestDatabase } from '../helpers/test-databases.js'

const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`
const PASSWORD = 'correct horse battery staple'

function body(message: unknown): JsonRpcBody {
  const read = readJsonRpcBody(Buffer.from(JSON.stringify(message)))
  assert.ok(!isBodyProblem(read))
  return read
}

function governance(tunnelId: string, document: unknown): TunnelGovernance {
  const policy = parsePolicy(document)
  assert.ok(!isPolicyProblem(policy), JSON.stringify(policy))
  return new TunnelGovernance(tunnelId, 1, policy)
}

const CALL = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'login',
    arguments: {
      user: 'ada',
      Password: PASSWORD,
      note: `token ${GITHUB_TOKEN}`,
      account: 'acct-123456',
    },
  },
}
const ANSWER = {
  jsonrpc: '2.0',
  id: 7,
  result: { content: [{ type: 'text', text: `signed in; your key is ${GITHUB_TOKEN}` }] },
}

for (const backend of testBackends()) {
  describe(`governed history on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let tunnel: { id: string; accountId: string; plan: 'free' }
    let writer: CallHistoryWriter
    let metrics: CallMetrics
    let tail: LiveTail
    let events: TailEvent[]
    let history: GovernedHistory

    const stored = async () => {
      await writer.flush()
      return (await listCalls(store.db, tunnel.id, { limit: 200 })).calls
    }

    /** One exchange through the edge's record: `request` answered with `answer`. */
    function exchange(request: unknown, answer: unknown, gov: TunnelGovernance | null) {
      const record = new ExchangeRecord({
        tunnel,
        method: 'POST',
        body: body(request),
        bodyBytes: JSON.stringify(request).length,
        sessionId: 'session-1',
        history,
        sessions: null,
        governance: gov,
        arrivedAt: new Date('2026-05-01T09:00:00.000Z'),
        started: performance.now(),
      })
      record.answered(200, [])
      const read = parseJsonRpcText(JSON.stringify(answer))
      assert.ok(!isBodyProblem(read))
      for (const m of read.messages) record.answerMessage(m)
      record.closed()
    }

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      const account = await store.createAccount({ email: 'h@example.com', slug: 'history' })
      const created = await store.createTunnel({ accountId: account.id, name: 'h' })
      tunnel = { id: created.tunnel.id, accountId: account.id, plan: 'free' }
      writer = new CallHistoryWriter(store.db, { log: silentLogger, flushMs: 3_600_000 })
      metrics = new CallMetrics(store.db, { log: silentLogger, flushMs: 3_600_000 })
      tail = new LiveTail()
      events = []
      tail.watch(tunnel.id, {
        send: (e) => {
          events.push(e)
          return true
        },
      })
      history = new GovernedHistory(writer, metrics, tail)
    })

    afterEach(async () => {
      await writer.close()
      await metrics.close()
      await store.close()
      await database.drop()
    })

    it('hands each record to history, metrics and the tail once, under one new id', async () => {
      const record: CallRecord = {
        tunnelId: tunnel.id,
        at: new Date(),
        method: 'tools/call',
        tool: 'search',
        status: 200,
        policyCode: null,
        durationMs: 4,
      }
      history.record(record)
      history.record(record)
      const rows = await stored()
      assert.equal(rows.length, 2)
      assert.notEqual(rows[0]!.id, rows[1]!.id, 'each record gets its own id')
      assert.deepEqual(
        events.map((e) => (e.type === 'call' ? e.call.id : null)).sort(),
        rows.map((r) => r.id).sort(),
        'the tail shows the ids the history stores',
      )
      await metrics.flush()
      const report = await metricsReport(store.db, tunnel.id, '1h', new Date())
      assert.deepEqual(
        report.methods.map((m) => [m.method, m.tool, m.calls]),
        [['tools/call', 'search', 2]],
      )
    })

    it('keeps the id a record already has', async () => {
      history.record({
        id: 'call_0000000000010000000000001',
        tunnelId: tunnel.id,
        at: new Date(),
        method: 'ping',
        tool: null,
        status: 200,
        policyCode: null,
        durationMs: 1,
      })
      assert.deepEqual(
        (await stored()).map((r) => r.id),
        ['call_0000000000010000000000001'],
      )
      assert.equal(
        events[0]?.type === 'call' && events[0].call.id,
        'call_0000000000010000000000001',
      )
    })

    it('stores and shows the request and its answer redacted', async () => {
      const gov = governance(tunnel.id, {
        redaction: { keys: ['password'], patterns: ['acct-[0-9]{6}'] },
      })
      exchange(CALL, ANSWER, gov)
      const [row] = await stored()
      const shown = events[0]?.type === 'call' ? events[0].call : null
      for (const text of [
        row!.requestBody,
        row!.responseBody,
        shown?.requestBody,
        shown?.responseBody,
      ]) {
        assert.ok(text, 'a body is kept')
        assert.ok(!text.includes(GITHUB_TOKEN), text)
        assert.ok(!text.includes(PASSWORD), text)
        assert.ok(!text.includes('acct-123456'), text)
      }
      const request = JSON.parse(row!.requestBody!) as typeof CALL
      assert.deepEqual(request.params.arguments, {
        user: 'ada',
        Password: '[REDACTED:password]',
        note: 'token [REDACTED:github_token]',
        account: '[REDACTED:pattern]',
      })
      assert.match(row!.responseBody!, /your key is \[REDACTED:github_token\]/)
      assert.equal(row!.tool, 'login')
      assert.equal(row!.rpcId, '7')
    })

    it('stores no bodies in zero-knowledge mode, only what happened', async () => {
      exchange(CALL, ANSWER, governance(tunnel.id, { zero_knowledge: true }))
      const [row] = await stored()
      assert.equal(row!.requestBody, null)
      assert.equal(row!.responseBody, null)
      assert.equal(row!.bodiesCut, false)
      assert.equal(row!.method, 'tools/call')
      assert.equal(row!.tool, 'login')
      assert.equal(row!.outcome, 'ok')
      const shown = events[0]?.type === 'call' ? events[0].call : null
      assert.equal(shown?.requestBody, null)
      assert.equal(shown?.responseBody, null)
      const everything = JSON.stringify(
        await store.db.selectFrom('call_history').selectAll().execute(),
      )
      assert.ok(!everything.includes('ada'), 'nothing of the request is in the database')
    })

    it('stores a refusal it answered itself redacted too, and without bodies in zero knowledge', async () => {
      for (const zeroKnowledge of [false, true]) {
        const record = new ExchangeRecord({
          tunnel,
          method: 'POST',
          body: body(CALL),
          sessionId: undefined,
          history,
          sessions: null,
          governance: governance(tunnel.id, {
            zero_knowledge: zeroKnowledge,
            tools: { deny: ['login'] },
          }),
          arrivedAt: new Date(),
          started: performance.now(),
        })
        record.refused(403, 'tool_denied', 'the tool "login" is not allowed')
        record.closed()
      }
      const rows = await stored()
      assert.equal(rows.length, 2)
      const [zk, kept] = rows
      assert.equal(zk!.requestBody, null)
      assert.equal(zk!.responseBody, null)
      assert.equal(kept!.outcome, 'refused')
      assert.equal(kept!.policyCode, 'tool_denied')
      assert.ok(!kept!.requestBody!.includes(GITHUB_TOKEN))
      assert.match(kept!.responseBody!, /"policy_code":"tool_denied"/)
    })

    it('cuts an oversized body after redacting it, and says so', async () => {
      const huge = {
        ...CALL,
        params: { name: 'login', arguments: { blob: `${GITHUB_TOKEN} ${'x'.repeat(200_000)}` } },
      }
      exchange(huge, ANSWER, governance(tunnel.id, {}))
      const [row] = await stored()
      assert.equal(row!.bodiesCut, true)
      assert.ok(row!.requestBody!.length <= 64 * 1024)
      assert.ok(!row!.requestBody!.includes(GITHUB_TOKEN))
      assert.ok(row!.requestBody!.includes('[REDACTED:github_token]'))
    })
  })
}
