/**
 * A batch that holds more calls than a rate limit allows at all is refused without a
 * `Retry-After`: it would never fit, however long the agent waited (before, it was told to retry
 * in so many seconds, and refused again each time; found by a hostile review).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isBodyProblem, readJsonRpcBody, type JsonRpcBody } from '@burrow/protocol'
import { governRequest } from '../../src/edge/govern-request.js'
import { MemoryCallRateLimits } from '../../src/governance/call-rate-limits.js'
import { isPolicyProblem, parsePolicy } from '../../src/governance/parse-policy.js'
import { TunnelGovernance } from '../../src/governance/tunnel-governance.js'

function governance(document: unknown): TunnelGovernance {
  const policy = parsePolicy(document)
  assert.ok(!isPolicyProblem(policy), JSON.stringify(policy))
  return new TunnelGovernance('tun_batch', 1, policy)
}

function rpc(message: unknown): JsonRpcBody {
  const read = readJsonRpcBody(Buffer.from(JSON.stringify(message)))
  assert.ok(!isBodyProblem(read), JSON.stringify(read))
  return read
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
})

describe('a batch past a rate limit', () => {
  it('is refused with no Retry-After, and takes nothing', async () => {
    let now = 0
    const limits = new MemoryCallRateLimits(() => now)
    const gov = governance({ rate_limits: [{ tool: 'search', limit: 2, per_seconds: 60 }] })
    const batch = rpc([call(1, 'search'), call(2, 'search'), call(3, 'search')])
    for (const wait of [0, 60_000, 3_600_000]) {
      now += wait
      const refused = await governRequest(gov, limits, batch)
      assert.equal(refused?.code, 'rate_limited')
      assert.equal(refused.headers?.['retry-after'], undefined, `told to retry: ${refused.reason}`)
      assert.match(refused.reason, /3 calls to search in one batch; at most 2/)
    }
    // Nothing was taken: the limit's two calls still fit at once.
    assert.equal(
      await governRequest(gov, limits, rpc([call(4, 'search'), call(5, 'search')])),
      null,
    )
  })

  it('still gets Retry-After when it would fit once the bucket refills', async () => {
    const limits = new MemoryCallRateLimits(() => 0)
    const gov = governance({ rate_limits: [{ tool: 'search', limit: 2, per_seconds: 60 }] })
    assert.equal(await governRequest(gov, limits, rpc(call(1, 'search'))), null)
    const refused = await governRequest(gov, limits, rpc([call(2, 'search'), call(3, 'search')]))
    assert.equal(refused?.code, 'rate_limited')
    assert.equal(refused.headers?.['retry-after'], '30')
  })
})
