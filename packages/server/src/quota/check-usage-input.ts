/**
 * Argument checks shared by both counter implementations (and the session trackers), so they
 * refuse the same inputs the same way. Bad arguments are programming errors (the edge passes plan numbers and byte
 * counts), so they throw RangeError rather than a user-facing error.
 */

import { USAGE_METRICS } from './usage-counters.js'
import type { UsageDemand, UsageMetric } from './usage-counters.js'

/** Tunnel ids are `tun_` + hex; anything with `:` or glob characters would break Redis keys. */
const TUNNEL_ID = /^[A-Za-z0-9_-]{1,64}$/

/** Throw RangeError (naming `what`) unless `tunnelId` is a plain id, safe in a Redis key. */
export function checkTunnelId(tunnelId: string, what: string): void {
  if (!TUNNEL_ID.test(tunnelId)) {
    throw new RangeError(`${what}: tunnel id "${tunnelId}" must match ${String(TUNNEL_ID)}`)
  }
}

/**
 * Throw RangeError unless `tunnelId` is a plain id, `metric` a known metric and every entry of
 * `amounts` (named for the message) a non-negative safe integer.
 */
export function checkUsageInput(
  tunnelId: string,
  metric: UsageMetric,
  amounts: Readonly<Record<string, number>> = {},
): void {
  checkTunnelId(tunnelId, 'usage counter')
  if (!USAGE_METRICS.includes(metric)) {
    throw new RangeError(`usage counter: unknown metric "${String(metric)}"`)
  }
  // for…in, not Object.entries: this runs several times for every request the edge counts.
  for (const name in amounts) {
    const amount = amounts[name]!
    if (!Number.isSafeInteger(amount) || amount < 0) {
      throw new RangeError(`usage counter: ${name} must be a non-negative integer, got ${amount}`)
    }
  }
}

const CHECKS = new Set(['fits', 'below', 'none'])

/**
 * Throw RangeError unless `demands` is a non-empty list of well-formed demands on distinct
 * metrics of the plain tunnel id `tunnelId`.
 */
export function checkUsageDemands(tunnelId: string, demands: readonly UsageDemand[]): void {
  if (demands.length === 0) throw new RangeError('usage counter: consumeAll needs a demand')
  const seen = new Set<UsageMetric>()
  for (const { metric, n, limit, check } of demands) {
    checkUsageInput(tunnelId, metric, { n, limit })
    if (!CHECKS.has(check)) throw new RangeError(`usage counter: unknown check "${String(check)}"`)
    if (seen.has(metric)) throw new RangeError(`usage counter: metric "${metric}" demanded twice`)
    seen.add(metric)
  }
}
