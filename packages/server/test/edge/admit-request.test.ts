/**
 * The edge's admission of one request, on the real session tracker and quota gate (usage
 * counters in memory over SQLite): what a refusal says, that a refused request takes no place
 * and is counted nowhere, and that a 2026-07-28 retry continuing a known call is counted once.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { isBodyProblem, readJsonRpcBody, silentLogger, type JsonRpcBody } from '@burrow/protocol'
import { admitRequest, type AdmissionRules } from '../../src/edge/admit-request.js'
import { CallContinuations, FREE_ROUNDS } from '../../src/edge/call-continuations.js'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { EdgeSessions } from '../../src/quota/edge-sessions.js'
import { MemorySessionTracker } from '../../src/quota/memory-session-tracker.js'
import { QuotaGate } from '../../src/quota/quota-gate.js'
import type { UsageCounters } from '../../src/quota/usage-counters.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import { PLANS } from '../../src/plans.js'
import { counterImplementations, type CounterSubject } from '../quota/usage-counter-subjects.js'
import { initializeMessage } from '../../../../test/helpers/quota-stack.js'

const TUNNEL: TunnelWithAccount = {
  id: 'tun_admit',
  accountId: 'acc_admit',
  name: null,
  subdomain: 'admit',
  createdAt: new Date(0),
  lastSeenAt: null,
  serving: true,
  pinned: false,
  accountSlug: 'acme',
  plan: 'free',
}
const FREE_CALLS = 100_000

function body(value: unknown): JsonRpcBody {
  const parsed = readJsonRpcBody(Buffer.from(JSON.stringify(value)))
  if (isBodyProblem(parsed)) throw new Error(parsed.message)
  return parsed
}

const initialize = (id: number) => body(initializeMessage(id))
const toolCall = (id: number, params: Record<string, unknown> = {}) =>
  body({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', ...params } })

/** A refusal `admitRequest` answered with. */
interface Refused {
  code: string
  reason: string
  headers?: Record<string, string>
}

describe('admitRequest', () => {
  const [implementation] = counterImplementations()
  let subject: CounterSubject
  let counters: UsageCounters
  let rules: AdmissionRules
  let continuations: CallContinuations
  let refusals: Refused[]

  const admit = (rpc: JsonRpcBody, sessionId?: string) => {
    const record = new ExchangeRecord({
      tunnel: TUNNEL,
      method: 'POST',
      body: rpc,
      sessionId,
      history: null,
      sessions: rules.sessions,
      arrivedAt: new Date(),
      started: performance.now(),
    })
    return admitRequest(
      rules,
      { tunnel: TUNNEL, method: 'POST', rpc, requestBytes: 100, sessionId, record },
      (code, _m, reason, headers) =>
        refusals.push({ code, reason, ...(headers ? { headers } : {}) }),
    )
  }
  const toolCalls = () => counters.get(TUNNEL.id, 'tool_calls')

  beforeEach(async () => {
    subject = await implementation!.open(() => new Date())
    counters = subject.counters
    continuations = new CallContinuations()
    refusals = []
    rules = {
      sessions: new EdgeSessions(new MemorySessionTracker({ idleMs: 300_000 }), silentLogger),
      quotas: new QuotaGate({ counters, log: silentLogger }),
      continuations,
    }
  })

  afterEach(async () => {
    await subject.close()
  })

  it('refuses the fourth session of a Free tunnel and counts nothing for it', async () => {
    for (let id = 1; id <= 3; id++) assert.notEqual(await admit(initialize(id)), false)
    assert.equal(await admit(initialize(4)), false)
    assert.equal(refusals.length, 1)
    assert.equal(refusals[0]!.code, 'session_limit')
  })

  it('refuses a call past the quota with Retry-After, and counts nothing for it', async () => {
    await counters.set(TUNNEL.id, 'tool_calls', FREE_CALLS)
    assert.equal(await admit(toolCall(1)), false)
    assert.equal(refusals[0]!.code, 'quota_exceeded')
    assert.match(refusals[0]!.reason, /100,000/)
    assert.ok(Number(refusals[0]!.headers?.['retry-after']) > 0)
    assert.equal(await toolCalls(), FREE_CALLS)
  })

  it('counts a call once, and a retry continuing it not again', async () => {
    assert.equal(await admit(toolCall(1)), true)
    assert.equal(await toolCalls(), 1)
    continuations.remember({ tunnelId: TUNNEL.id, agentId: null }, 'echo', 'state-1', 'call_1')
    assert.equal(await admit(toolCall(2, { requestState: 'state-1' })), true)
    assert.equal(await toolCalls(), 1, 'the retry continues the call already counted')
    assert.equal(await admit(toolCall(3, { requestState: 'made-up' })), true)
    assert.equal(await toolCalls(), 2, 'a state the edge never handed out is a new call')
  })

  it('counts a retry past the free rounds, and refuses it on a used-up month', async () => {
    continuations.remember(
      { tunnelId: TUNNEL.id, agentId: null },
      'echo',
      'late',
      'call_1',
      FREE_ROUNDS,
    )
    assert.equal(await admit(toolCall(4, { requestState: 'late' })), true)
    assert.equal(await toolCalls(), 1, 'past the free rounds a retry is a call')
    await counters.set(TUNNEL.id, 'tool_calls', FREE_CALLS)
    continuations.remember(
      { tunnelId: TUNNEL.id, agentId: null },
      'echo',
      'later',
      'call_1',
      FREE_ROUNDS + 1,
    )
    assert.equal(await admit(toolCall(5, { requestState: 'later' })), false)
    assert.equal(refusals.at(-1)?.code, 'quota_exceeded')
  })

  it('gives a retry refused by the quotas its state back (found by a hostile review)', async () => {
    // A free retry refused by a used-up bandwidth month used up its requestState: once the month
    // turned, the agent's retry of the same call was a new, counted call.
    const caller = { tunnelId: TUNNEL.id, agentId: null }
    continuations.remember(caller, 'echo', 'state-1', 'call_1')
    await counters.set(TUNNEL.id, 'bandwidth_bytes', PLANS.free.bandwidthBytesPerMonth)
    assert.equal(await admit(toolCall(1, { requestState: 'state-1' })), false)
    assert.equal(refusals.at(-1)?.code, 'quota_exceeded')
    await counters.set(TUNNEL.id, 'bandwidth_bytes', 0)
    assert.equal(await admit(toolCall(2, { requestState: 'state-1' })), true)
    assert.equal(await toolCalls(), 0, 'the retry continued its call')
  })

  it('admits everything and counts nothing when quotas are off', async () => {
    rules = { sessions: null, quotas: null, continuations }
    for (let id = 1; id <= 5; id++) {
      assert.equal(await admit(initialize(id)), true)
    }
    assert.equal(refusals.length, 0)
  })
})
