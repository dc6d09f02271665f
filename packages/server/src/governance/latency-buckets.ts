/**
 * Latencies as per-method metrics keep them: counts in 64 buckets whose upper bounds grow by 25%
 * from 0.1 ms (the last one, about 130 s, also takes anything slower). Counts add up across
 * nodes and hours, and a percentile is the upper bound of the bucket it falls in: at most 25%
 * above the true value, never below it.
 */

/** Number of buckets. */
export const LATENCY_BUCKETS = 64

const FIRST_MS = 0.1
const GROWTH = 1.25

/** Upper bound of bucket `i`, in milliseconds. */
export function bucketUpperMs(i: number): number {
  return FIRST_MS * GROWTH ** i
}

/** The bucket a latency of `ms` falls in. */
export function bucketOf(ms: number): number {
  if (!(ms > FIRST_MS)) return 0
  const i = Math.ceil(Math.log(ms / FIRST_MS) / Math.log(GROWTH) - 1e-9)
  return Math.min(LATENCY_BUCKETS - 1, i)
}

/** The `p`-th percentile (0 < p ≤ 100) of `counts`, as a bucket's upper bound; null when empty. */
export function percentileMs(counts: readonly number[], p: number): number | null {
  let total = 0
  for (const c of counts) total += c
  if (total === 0) return null
  const rank = Math.ceil((p / 100) * total)
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!
    if (seen >= rank) return round(bucketUpperMs(i))
  }
  return round(bucketUpperMs(counts.length - 1))
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000
}
