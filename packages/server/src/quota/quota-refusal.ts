/**
 * Why a request was refused for an exhausted monthly quota, in the words the agent reads in the
 * envelope's `reason` (docs/decisions.md#quotas-and-sessions): which limit, how large, on which
 * plan, and when it resets.
 */
import type { Plan } from '../plans.js'
import { secondsUntilReset } from './period.js'
import type { UsageMetric } from './usage-counters.js'

/** A refusal for an exhausted monthly quota. */
export interface QuotaRefusal {
  readonly metric: UsageMetric
  readonly limit: number
  /** The counter when the request was refused. */
  readonly used: number
  readonly resetsAt: Date
  /** Whole seconds until the reset (the `Retry-After` header), never 0. */
  readonly retryAfterSecs: number
  /** e.g. "the monthly tool-call limit of 100,000 for this tunnel (Free plan) was reached; …". */
  readonly reason: string
}

/** The envelope's `error.message` for every quota refusal. */
export const QUOTA_MESSAGE = 'quota exceeded for this tunnel'

/** What history says of a response cut because its tunnel's month went past the bandwidth limit. */
export const RESPONSE_CUT_REASON =
  "the response was cut: the tunnel's monthly bandwidth went too far past its limit while it streamed"

/** The refusal for `metric` of a tunnel on `plan`, refused at `now` with the counter at `used`. */
export function quotaRefusal(
  metric: UsageMetric,
  plan: Plan,
  used: number,
  resetsAt: Date,
  now: Date,
): QuotaRefusal {
  const limit = metric === 'tool_calls' ? plan.toolCallsPerMonth : plan.bandwidthBytesPerMonth
  const what =
    metric === 'tool_calls'
      ? `tool-call limit of ${limit.toLocaleString('en-US')}`
      : `bandwidth limit of ${formatBytes(limit)}`
  return {
    metric,
    limit,
    used,
    resetsAt,
    retryAfterSecs: secondsUntilReset(now),
    reason: `the monthly ${what} for this tunnel (${plan.name} plan) was reached; it resets on ${formatReset(resetsAt)}`,
  }
}

/** `5 GB` for whole decimal gigabytes (as plans are sold), else the exact bytes. */
export function formatBytes(bytes: number): string {
  const GB = 1_000_000_000
  if (bytes >= GB && bytes % GB === 0) return `${(bytes / GB).toLocaleString('en-US')} GB`
  return `${bytes.toLocaleString('en-US')} bytes`
}

/** `2026-12-01 00:00 UTC`. */
export function formatReset(at: Date): string {
  const iso = at.toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}
