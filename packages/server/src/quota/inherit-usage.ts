/**
 * A tunnel's counters carry on those of another of its account's tunnels this month: a new
 * tunnel those of the tunnel deleted last (`store/released-tunnels.ts`), a tunnel its owner chose
 * to serve those of the tunnel it displaced (`app/serving-swaps.ts`). The monthly quotas are per
 * tunnel, and a tunnel deleted and created again, or swapped in for one that used up its month,
 * must not start the month at zero.
 */
import { USAGE_METRICS, type UsageCounters } from './usage-counters.js'

/** Raise `to`'s counters of `now`'s month to `from`'s, where `from`'s are higher. */
export async function inheritUsage(
  counters: UsageCounters,
  from: string,
  to: string,
  now = new Date(),
): Promise<void> {
  for (const metric of USAGE_METRICS) {
    const value = await counters.get(from, metric, now)
    if (value > 0 && value > (await counters.get(to, metric, now))) {
      await counters.set(to, metric, value, now)
    }
  }
}
