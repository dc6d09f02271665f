/**
 * Reconnect delays: full jitter between 1 s and an exponentially growing cap of at most 30 s
 * (docs/protocol.md, Connection), so a fleet of clients does not reconnect in lockstep after an
 * outage.
 */

/** Delay before reconnect attempt `attempt` (0 for the first retry), in milliseconds. */
export function reconnectDelay(
  attempt: number,
  random: () => number = Math.random,
  minMs = 1000,
  maxMs = 30_000,
): number {
  const cap = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 16))
  return Math.round(minMs + random() * (cap - minMs))
}
