/**
 * The requestState registry that makes a 2026-07-28 call and its retries one counted call: each
 * state continues one retry of the same tunnel and agent within 15 minutes, forged, replayed, foreign and
 * oversized states are new calls, and memory stays bounded.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readJsonRpcBody, isBodyProblem, classifyMessage } from '@burrow/protocol'
import {
  CallContinuations,
  CONTINUATION_TTL_MS,
  countsAsCall,
  FREE_ROUNDS,
  MAX_CONTINUATIONS,
  MAX_CONTINUATIONS_PER_TUNNEL,
  inputRequiredStateOf,
  retryStateOf,
} from '../../src/edge/call-continuations.js'

const body = (value: unknown) => {
  const read = readJsonRpcBody(Buffer.from(JSON.stringify(value)))
  assert.ok(!isBodyProblem(read))
  return read
}

const A = { tunnelId: 'tun_a', agentId: null }
const B = { tunnelId: 'tun_b', agentId: null }

describe('CallContinuations', () => {
  it('continues one retry per state, on the same tunnel, within the time allowed', () => {
    let now = 0
    const c = new CallContinuations(() => now)
    c.remember(A, 'echo', 'state-1', 'call_1')
    assert.equal(c.take(B, 'echo', 'state-1'), null, 'another tunnel')
    assert.equal(c.take(A, 'echo', 'state-2'), null, 'never handed out')
    assert.equal(c.take(A, 'other', 'state-1'), null, 'another tool')
    assert.equal(c.take({ ...A, agentId: 'agt_b' }, 'echo', 'state-1'), null, 'another agent')
    assert.deepEqual(c.take(A, 'echo', 'state-1'), { callId: 'call_1', round: 1, at: 0 })
    assert.equal(c.take(A, 'echo', 'state-1'), null, 'a replay is a new call')

    c.remember(A, 'echo', 'state-3', 'call_3')
    now += CONTINUATION_TTL_MS + 1
    assert.equal(c.take(A, 'echo', 'state-3'), null, 'expired')
  })

  it('counts the retries of a call past its first FREE_ROUNDS (found by a hostile review)', () => {
    // A server answering every round with input_required, and an agent retrying, ran unlimited
    // work as one counted call, past a used-up month too.
    const c = new CallContinuations()
    c.remember(A, 'echo', 'state-0', 'call_1')
    const counted: boolean[] = []
    for (let round = 1; round <= FREE_ROUNDS + 3; round++) {
      const continued = c.take(A, 'echo', `state-${round - 1}`)
      assert.ok(continued)
      assert.deepEqual({ ...continued, at: 0 }, { callId: 'call_1', round, at: 0 })
      counted.push(countsAsCall(continued))
      c.remember(A, 'echo', `state-${round}`, continued.callId, continued.round)
    }
    assert.deepEqual(counted, [...Array<boolean>(FREE_ROUNDS).fill(false), true, true, true])
  })

  it('ignores empty and oversized states and stays bounded', () => {
    const c = new CallContinuations()
    c.remember(A, 'echo', '', 'call_1')
    c.remember(A, 'echo', 'x'.repeat(70_000), 'call_2')
    assert.equal(c.size, 0)
    assert.equal(c.take(A, 'echo', 'x'.repeat(70_000)), null)
    // Many tunnels, each within its share, fill the node's table: the oldest go first.
    const tunnels = Math.ceil((MAX_CONTINUATIONS + 10) / MAX_CONTINUATIONS_PER_TUNNEL)
    for (let i = 0; i < MAX_CONTINUATIONS + 10; i++) {
      const tunnel = { tunnelId: `tun_${i % tunnels}`, agentId: null }
      c.remember(tunnel, 'echo', `s${i}`, `call_${i}`)
    }
    assert.equal(c.size, MAX_CONTINUATIONS)
    assert.equal(c.take({ tunnelId: 'tun_0', agentId: null }, 'echo', 's0'), null, 'the oldest')
    const last = MAX_CONTINUATIONS + 9
    const lastTunnel = { tunnelId: `tun_${last % tunnels}`, agentId: null }
    assert.equal(c.take(lastTunnel, 'echo', `s${last}`)?.callId, `call_${last}`)
  })

  it("keeps other tunnels' states when one tunnel's calls keep asking for input (found by a hostile review)", () => {
    // One tenant's server answering every call with input_required pushed out, past 50,000, every
    // other tenant's states on the node, and their retries were then counted as new calls.
    const c = new CallContinuations()
    c.remember(B, 'echo', 'waiting-for-a-person', 'call_b')
    for (let i = 0; i < MAX_CONTINUATIONS + 10; i++) c.remember(A, 'echo', `s${i}`, `call_${i}`)
    assert.equal(c.take(B, 'echo', 'waiting-for-a-person')?.callId, 'call_b')
    assert.equal(c.take(A, 'echo', 's0'), null, 'the tunnel forgot its own oldest')
    const last = `s${MAX_CONTINUATIONS + 9}`
    assert.equal(c.take(A, 'echo', last)?.callId, `call_${MAX_CONTINUATIONS + 9}`)
  })

  it("keeps an agent's states when another agent of the tunnel fills the tunnel's share (found by a hostile review)", () => {
    // One approved agent whose calls kept asking for input pushed out, past 1,000, the states
    // of every other agent of the tunnel, whose retries were then counted as new calls.
    const alice = { tunnelId: 'tun_a', agentId: 'agt_alice' }
    const mallory = { tunnelId: 'tun_a', agentId: 'agt_mallory' }
    const c = new CallContinuations()
    c.remember(alice, 'echo', 'waiting-for-a-person', 'call_alice')
    for (let i = 0; i < MAX_CONTINUATIONS_PER_TUNNEL + 10; i++)
      c.remember(mallory, 'echo', `s${i}`, `call_${i}`)
    assert.equal(c.size, MAX_CONTINUATIONS_PER_TUNNEL)
    assert.equal(c.take(alice, 'echo', 'waiting-for-a-person')?.callId, 'call_alice')
    assert.equal(c.take(mallory, 'echo', 's10'), null, "mallory's own oldest went")
    assert.equal(c.take(mallory, 'echo', 's11')?.callId, 'call_11')
    // A newcomer to a full tunnel takes its place from the agent holding the most.
    for (let i = 0; i < 3; i++) c.remember(alice, 'echo', `a${i}`, `call_a${i}`)
    assert.equal(c.size, MAX_CONTINUATIONS_PER_TUNNEL)
    for (let i = 0; i < 3; i++) assert.equal(c.take(alice, 'echo', `a${i}`)?.callId, `call_a${i}`)
  })

  it('gives a refused retry its state back, with the time it was handed out', () => {
    let now = 0
    const c = new CallContinuations(() => now)
    c.remember(A, 'echo', 'state-1', 'call_1', 3)
    const taken = c.take(A, 'echo', 'state-1')
    assert.ok(taken)
    now += 1000
    c.giveBack(A, 'echo', 'state-1', taken)
    assert.deepEqual(c.take(A, 'echo', 'state-1'), { callId: 'call_1', round: 4, at: 0 })
    c.giveBack(A, 'echo', 'state-1', taken)
    now = CONTINUATION_TTL_MS + 1
    assert.equal(
      c.take(A, 'echo', 'state-1'),
      null,
      'a state given back expires when it would have',
    )
  })
})

describe('retryStateOf and inputRequiredStateOf', () => {
  it('reads the state of a single tools/call retry only', () => {
    const call = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })
    assert.deepEqual(retryStateOf(body(call({ name: 't', requestState: 'abc' }))), {
      tool: 't',
      state: 'abc',
    })
    assert.equal(retryStateOf(body(call({ name: 't' }))), null)
    assert.equal(retryStateOf(body(call({ name: 't', requestState: 7 }))), null)
    assert.equal(
      retryStateOf(
        body({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { requestState: 'a' } }),
      ),
      null,
    )
    assert.equal(retryStateOf(body([call({ name: 't', requestState: 'abc' })])), null, 'batches')
    assert.equal(retryStateOf(null), null)
  })

  it('reads the state of an answer asking for input', () => {
    const answer = (result: unknown) => classifyMessage({ jsonrpc: '2.0', id: 1, result })
    assert.equal(
      inputRequiredStateOf(
        answer({ resultType: 'input_required', requestState: 's', inputRequests: {} }),
      ),
      's',
    )
    assert.equal(inputRequiredStateOf(answer({ resultType: 'complete', requestState: 's' })), null)
    assert.equal(inputRequiredStateOf(answer({ resultType: 'input_required' })), null)
    assert.equal(
      inputRequiredStateOf(
        classifyMessage({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }),
      ),
      null,
    )
  })
})
