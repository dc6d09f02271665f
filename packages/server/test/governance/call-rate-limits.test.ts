// Exact rate limits in process and in Redis: N of 100 concurrent calls pass, all or nothing
// across buckets, refill over the period, and the reason an agent reads.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import type { ClassifiedMessage } from '@burrow/protocol'
import { classifyMessage } from '@burrow/protocol'
import { Redis } from 'ioredis'
import {
  MemoryCallRateLimits,
  RedisCallRateLimits,
  type CallRateLimits,
} from '../../src/governance/call-rate-limits.js'
import { RateLimitRules } from '../../src/governance/rate-limit-demands.js'

const call = (id: number, tool: string): ClassifiedMessage =>
  classifyMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool } })

const rules = new RateLimitRules([
  { on: 'tool', pattern: 'search', limit: 10, perSeconds: 60 },
  { on: 'method', pattern: '*', limit: 600, perSeconds: 60 },
])

function contract(name: string, make: () => Promise<CallRateLimits>, close?: () => Promise<void>) {
  describe(`call rate limits: ${name}`, () => {
    after(async () => close?.())

    it('lets exactly the limit through of 100 concurrent calls', async () => {
      const limits = await make()
      const tunnel = `tun_${Math.random().toString(36).slice(2)}`
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          limits.admit(rules.demands(tunnel, [call(i, 'search')])),
        ),
      )
      assert.equal(outcomes.filter((o) => o.ok).length, 10)
      const refused = outcomes.find((o) => !o.ok)
      assert.ok(refused && !refused.ok)
      assert.equal(refused.index, 0)
      assert.ok(refused.retryAfterSecs >= 1 && refused.retryAfterSecs <= 6)
      // Other tools still pass: only the method rule applies to them.
      assert.equal((await limits.admit(rules.demands(tunnel, [call(1, 'read')]))).ok, true)
    })

    it('takes from every bucket or none', async () => {
      const limits = await make()
      const tunnel = `tun_${Math.random().toString(36).slice(2)}`
      const small = new RateLimitRules([
        { on: 'tool', pattern: 'a', limit: 2, perSeconds: 60 },
        { on: 'method', pattern: 'tools/call', limit: 3, perSeconds: 60 },
      ])
      const batch = [call(1, 'a'), call(2, 'a'), call(3, 'a')]
      assert.equal((await limits.admit(small.demands(tunnel, batch))).ok, false)
      // Nothing was taken: three single calls to other tools still fit the method rule.
      for (let i = 0; i < 3; i++)
        assert.equal((await limits.admit(small.demands(tunnel, [call(i, 'b')]))).ok, true)
      assert.equal((await limits.admit(small.demands(tunnel, [call(9, 'b')]))).ok, false)
    })

    it('starts a rewritten rule full, in the same place', async () => {
      const limits = await make()
      const tunnel = `tun_${Math.random().toString(36).slice(2)}`
      const two = new RateLimitRules([{ on: 'tool', pattern: 'a', limit: 2, perSeconds: 60 }])
      for (let i = 0; i < 2; i++)
        assert.equal((await limits.admit(two.demands(tunnel, [call(i, 'a')]))).ok, true)
      assert.equal((await limits.admit(two.demands(tunnel, [call(3, 'a')]))).ok, false)
      const three = new RateLimitRules([{ on: 'tool', pattern: 'a', limit: 3, perSeconds: 60 }])
      assert.equal(
        three.demands(tunnel, [call(1, 'a')])[0]!.key,
        two.demands(tunnel, [call(1, 'a')])[0]!.key,
      )
      for (let i = 0; i < 3; i++)
        assert.equal((await limits.admit(three.demands(tunnel, [call(i, 'a')]))).ok, true)
      assert.equal((await limits.admit(three.demands(tunnel, [call(4, 'a')]))).ok, false)
      // Back to the first shape: its own count, kept while two versions are in force.
      assert.equal((await limits.admit(two.demands(tunnel, [call(5, 'a')]))).ok, false)
    })

    it('keeps both counts while nodes apply two versions of a rule', async () => {
      const limits = await make()
      const tunnel = `tun_${Math.random().toString(36).slice(2)}`
      const v1 = new RateLimitRules([{ on: 'tool', pattern: 'a', limit: 1, perSeconds: 3600 }])
      const v2 = new RateLimitRules([{ on: 'tool', pattern: 'a', limit: 2, perSeconds: 3600 }])
      let admitted = 0
      for (let i = 0; i < 100; i++) {
        const rules = i % 2 === 0 ? v1 : v2
        if ((await limits.admit(rules.demands(tunnel, [call(i, 'a')]))).ok) admitted++
      }
      assert.equal(admitted, 3, 'one under the first version, two under the second')
    })
  })
}

describe('call rate limits: refill and reasons', () => {
  it('refills evenly over the period', async () => {
    let now = 0
    const limits = new MemoryCallRateLimits(() => now)
    const demand = rules.demands('t', [call(1, 'search')])
    for (let i = 0; i < 10; i++) assert.equal((await limits.admit(demand)).ok, true)
    const refused = await limits.admit(demand)
    assert.deepEqual(refused, { ok: false, index: 0, retryAfterSecs: 6 })
    now = 6_000
    assert.equal((await limits.admit(demand)).ok, true)
    assert.equal((await limits.admit(demand)).ok, false)
  })

  it('leaves no buckets behind when a policy is rewritten again and again', async () => {
    const limits = new MemoryCallRateLimits(() => 0)
    for (let i = 1; i <= 3000; i++) {
      const rewritten = new RateLimitRules([
        { on: 'tool', pattern: 'search', limit: i, perSeconds: 60 },
        { on: 'method', pattern: '*', limit: i, perSeconds: 60, per: 'agent' },
      ])
      await limits.admit(rewritten.demands('t', [call(i, 'search')], 'agent_1'))
    }
    assert.equal(limits.size, 2)
  })

  it('forgets a bucket idle for its whole period', async () => {
    let now = 0
    const limits = new MemoryCallRateLimits(() => now)
    const short = new RateLimitRules([{ on: 'tool', pattern: '*', limit: 5, perSeconds: 1 }])
    for (let i = 0; i < 500; i++) await limits.admit(short.demands(`t${i}`, [call(i, 'x')]))
    assert.equal(limits.size, 500)
    now = 1_000
    const busy = new RateLimitRules([{ on: 'tool', pattern: '*', limit: 5000, perSeconds: 1 }])
    for (let i = 0; i < 1024; i++) await limits.admit(busy.demands('busy', [call(i, 'x')]))
    assert.equal(limits.size, 1)
  })

  it('says what was limited and when to retry', () => {
    const demands = rules.demands('t', [call(1, 'search')])
    assert.equal(
      RateLimitRules.reason(demands, 0, 12),
      '10 calls per 60 s to search; retry in 12 s',
    )
    assert.equal(
      RateLimitRules.reason(demands, 1, 2),
      '600 requests per 60 s for any method; retry in 2 s',
    )
  })

  it('matches nothing for notifications and other methods of tool rules', () => {
    const n = classifyMessage({ jsonrpc: '2.0', method: 'notifications/progress' })
    assert.deepEqual(rules.demands('t', [n]), [])
    const list = classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    assert.equal(rules.demands('t', [list]).length, 1)
  })
})

contract('in process', () => Promise.resolve(new MemoryCallRateLimits()))

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl) {
  const clients: Redis[] = []
  contract(
    'Redis, two nodes',
    () => {
      // Two connections, as two nodes: each call alternates between them.
      const a = new Redis(redisUrl)
      const b = new Redis(redisUrl)
      clients.push(a, b)
      const nodes = [new RedisCallRateLimits(a, 'test:'), new RedisCallRateLimits(b, 'test:')]
      let turn = 0
      return Promise.resolve({
        admit: (d) => nodes[turn++ % 2]!.admit(d),
        close: () => Promise.resolve(),
      })
    },
    async () => {
      await Promise.all(clients.map((c) => c.quit()))
    },
  )
}
