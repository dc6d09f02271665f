// Latency buckets: which bucket a latency falls in, and percentiles from counts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  bucketOf,
  bucketUpperMs,
  LATENCY_BUCKETS,
  percentileMs,
} from '../../src/governance/latency-buckets.js'

describe('latency buckets', () => {
  it('puts a latency in the first bucket whose bound is not below it', () => {
    for (const ms of [0, 0.05, 0.1, 0.11, 1, 7.3, 250, 12_345]) {
      const i = bucketOf(ms)
      assert.ok(bucketUpperMs(i) >= ms - 1e-9, `${ms} above its bucket`)
      if (i > 0) assert.ok(bucketUpperMs(i - 1) < ms, `${ms} fits an earlier bucket`)
    }
    assert.equal(bucketOf(10_000_000), LATENCY_BUCKETS - 1)
  })

  it('gives percentiles as bucket bounds, at most 25% above the truth', () => {
    const latencies = Array.from({ length: 1000 }, (_, i) => 1 + i * 0.05)
    const counts = new Array<number>(LATENCY_BUCKETS).fill(0)
    for (const ms of latencies) counts[bucketOf(ms)]!++
    for (const p of [50, 95, 99]) {
      const exact = latencies[Math.ceil((p / 100) * latencies.length) - 1]!
      const got = percentileMs(counts, p)!
      assert.ok(got >= exact && got <= exact * 1.25, `p${p}: ${got} vs ${exact}`)
    }
    assert.equal(percentileMs(new Array<number>(LATENCY_BUCKETS).fill(0), 50), null)
  })
})
