/** A tunnel's month as the live counters have it: what the dashboard's meters show. */
import type { UsageCounters } from './usage-counters.js'

/** Reads a tunnel's live tool-call and bandwidth counters for `now`'s month. */
export function liveUsageOf(
  counters: UsageCounters,
): (tunnelId: string, now: Date) => Promise<{ toolCalls: number; bandwidthBytes: number }> {
  return async (tunnelId, now) => {
    const [toolCalls, bandwidthBytes] = await Promise.all([
      counters.get(tunnelId, 'tool_calls', now),
      counters.get(tunnelId, 'bandwidth_bytes', now),
    ])
    return { toolCalls, bandwidthBytes }
  }
}
