/**
 * A new tunnel's counters start where those of the account's tunnel deleted this month stood
 * (`store/released-tunnels.ts`): the monthly quotas are per tunnel, and a tunnel deleted and
 * created again must not start its month at zero.
 */
import { USAGE_METRICS, type UsageCounters } from './usage-counters.js'

/** Set `to`'s counters of `now`'s month to `from`'s, where `from` counted anything. */
export async function inheritUsage(
  counters: UsageCounters,
  from: string,
  to: string,
  now = new Date(),
): Promise<void> {
  for (const metric of USAGE_METRICS) {
    const value = await counters.get(from, metric, now)
    if (value > 0) await counters.set(to, metric, value, now)
  }
}
