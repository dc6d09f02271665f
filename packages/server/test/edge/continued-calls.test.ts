/**
 * A 2026-07-28 retry continues, uncounted, only the tool call whose answer asked for input: a
 * `requestState` handed out in answer to a `prompts/get` (which can ask for input too, and is no
 * call), or one presented by a call of another tool, is a new call, counted (found by a hostile
 * review: either made tool calls free).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import {
  classifyMessage,
  isBodyProblem,
  readJsonRpcBody,
  silentLogger,
  type JsonRpcBody,
} from '@burrow/protocol'
import { admitRequest, type AdmissionRules } from '../../src/edge/admit-request.js'
import { CallContinuations } from '../../src/edge/call-continuations.js'
import { ExchangeRecord } from '../../src/edge/exchange-record.js'
import { QuotaGate } from '../../src/quota/quota-gate.js'
import type { UsageCounters } from '../../src/quota/usage-counters.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import { counterImplementations, type CounterSubject } from '../quota/usage-counter-subjects.js'

const TUNNEL: TunnelWithAccount = {
  id: 'tun_cont',
  accountId: 'acc_cont',
  name: null,
  subdomain: 'cont',
  createdAt: new Date(0),
  lastSeenAt: null,
  serving: true,
  pinned: false,
  accountSlug: 'acme',
  plan: 'free',
}
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}

function body(value: unknown): JsonRpcBody {
  const parsed = readJsonRpcBody(Buffer.from(JSON.stringify(value)))
  if (isBodyProblem(parsed)) throw new Error(parsed.message)
  return parsed
}

const request = (id: number, method: string, params: Record<string, unknown>) =>
  body({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } })

const inputRequired = (id: number, state: string) =>
  classifyMessage({
    jsonrpc: '2.0',
    id,
    result: { resultType: 'input_required', inputRequests: {}, requestState: state },
  })

describe('calls continued by a requestState', () => {
  const [implementation] = counterImplementations()
  let subject: CounterSubject
  let counters: UsageCounters
  let rules: AdmissionRules
  let continuations: CallContinuations

  const admit = async (rpc: JsonRpcBody, agentId: string | null = null) => {
    const record = new ExchangeRecord({
      tunnel: TUNNEL,
      method: 'POST',
      body: rpc,
      sessionId: undefined,
      agentId,
      history: null,
      sessions: null,
      arrivedAt: new Date(),
      started: performance.now(),
      continuations,
    })
    const ok = await admitRequest(
      rules,
      {
        tunnel: TUNNEL,
        method: 'POST',
        rpc,
        requestBytes: 100,
        sessionId: undefined,
        agentId,
        record,
      },
      () => {},
    )
    assert.ok(ok)
    return record
  }
  const calls = () => counters.get(TUNNEL.id, 'tool_calls')

  beforeEach(async () => {
    subject = await implementation!.open(() => new Date())
    counters = subject.counters
    continuations = new CallContinuations()
    rules = {
      sessions: null,
      quotas: new QuotaGate({ counters, log: silentLogger }),
      continuations,
    }
  })
  afterEach(async () => {
    await subject.close()
  })

  it('continues the call whose answer asked for input, once', async () => {
    const first = await admit(request(1, 'tools/call', { name: 'asks', arguments: {} }))
    first.answerMessage(inputRequired(1, 'state-of-asks'))
    const retry = { name: 'asks', arguments: {}, requestState: 'state-of-asks' }
    await admit(request(2, 'tools/call', retry))
    assert.equal(await calls(), 1, 'the retry continues the call counted')
    await admit(request(3, 'tools/call', retry))
    assert.equal(await calls(), 2, 'a replayed state is a new call')
  })

  it('does not let a prompts/get answer asking for input make a tool call free', async () => {
    const prompt = await admit(request(1, 'prompts/get', { name: 'confirm' }))
    prompt.answerMessage(inputRequired(1, 'state-from-prompt'))
    assert.equal(await calls(), 0)
    const call = { name: 'expensive', arguments: {}, requestState: 'state-from-prompt' }
    await admit(request(2, 'tools/call', call))
    assert.equal(await calls(), 1)
  })

  it('counts a retry naming another tool than the call it continues as a new call', async () => {
    const first = await admit(request(1, 'tools/call', { name: 'asks', arguments: {} }))
    first.answerMessage(inputRequired(1, 'state-of-asks'))
    const other = { name: 'other', arguments: {}, requestState: 'state-of-asks' }
    await admit(request(2, 'tools/call', other))
    assert.equal(await calls(), 2)
  })

  it('continues a call only for the agent that made it (found by a hostile review)', async () => {
    // Another agent of the tunnel presenting the state was linked into the first agent's call,
    // uncounted, and the first agent's own retry then counted as a new, unlinked call.
    const first = await admit(request(1, 'tools/call', { name: 'asks', arguments: {} }), 'agt_a')
    first.answerMessage(inputRequired(1, 'state-of-a'))
    const retry = { name: 'asks', arguments: {}, requestState: 'state-of-a' }
    await admit(request(2, 'tools/call', retry), 'agt_b')
    assert.equal(await calls(), 2, 'another agent presenting the state makes a new call')
    await admit(request(3, 'tools/call', retry), 'agt_a')
    assert.equal(await calls(), 2, 'the agent that made the call still continues it')
  })

  it('keeps the state of one answer per request, not of each answer repeating its id', async () => {
    // In a batch, answers repeating the tool call's id, each with a state of its own, were each
    // remembered (only the count of answers was bounded, by the batch's size), so a server and
    // an agent in league made one counted call into a thousand free retries.
    const batch = body([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'asks', _meta: META } },
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: META } },
    ])
    const first = await admit(batch)
    for (let i = 0; i < 5; i++) first.answerMessage(inputRequired(1, `state-${i}`))
    assert.equal(await calls(), 1)
    assert.equal(continuations.size, 1, 'one state remembered for the one call')
    await admit(request(3, 'tools/call', { name: 'asks', requestState: 'state-0' }))
    assert.equal(await calls(), 1, 'the first answer’s state continues the call')
    await admit(request(4, 'tools/call', { name: 'asks', requestState: 'state-1' }))
    assert.equal(await calls(), 2, 'a repeated answer’s state is a new call')
  })

  it('keeps no state from an answer under an id the request did not have', async () => {
    const first = await admit(request(1, 'tools/call', { name: 'asks', arguments: {} }))
    first.answerMessage(inputRequired(99, 'stray-state'))
    assert.equal(continuations.size, 0)
  })
})
