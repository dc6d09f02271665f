/**
 * The dashboard's usage meters, current: this month's counts of each tunnel as the live counters
 * (the ones quotas are enforced against) have them now, over the last snapshot's. The JSON API
 * keeps the snapshot (docs/api.md#billing); a page read right after a call counts it.
 */
import type { MetersView } from './billing-view.js'

/** One tunnel's month as the live counters have it. */
export interface LiveUsage {
  readonly toolCalls: number
  readonly bandwidthBytes: number
}

/** Reads tunnel `tunnelId`'s live counters for `now`'s month. */
export type LiveUsagePort = (tunnelId: string, now: Date) => Promise<LiveUsage>

/**
 * `meters` with every tunnel's counts read live and `live` set; `meters` unchanged when there are
 * no live counters (quotas off) or they cannot be read now (the page then says how old its
 * snapshot is).
 */
export async function withLiveCounts(
  meters: MetersView,
  live: LiveUsagePort | undefined,
  now: Date,
): Promise<MetersView> {
  if (live === undefined) return meters
  try {
    const counts = await Promise.all(meters.tunnels.map((t) => live(t.tunnelId, now)))
    return {
      ...meters,
      live: true,
      tunnels: meters.tunnels.map((t, i) => ({ ...t, ...counts[i] })),
    }
  } catch {
    return meters
  }
}
