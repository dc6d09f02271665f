/**
 * How often `burrow up` pings the broker: the interval WELCOME asks for (`heartbeatMs`), kept
 * between one second and five minutes. The broker's word is not trusted with the timer: a
 * `setInterval` past 2^31-1 ms (or `1e400`, which JSON reads as Infinity) fires every
 * millisecond instead, and the client would ping the broker a thousand times a second.
 */

/** Shortest interval kept, in ms. */
export const MIN_HEARTBEAT_MS = 1_000

/** Longest interval kept, in ms. */
export const MAX_HEARTBEAT_MS = 5 * 60_000

/** The interval to ping at when the broker asks for `askedMs`. */
export function heartbeatInterval(askedMs: number): number {
  if (Number.isNaN(askedMs)) return MAX_HEARTBEAT_MS
  return Math.min(Math.max(MIN_HEARTBEAT_MS, askedMs), MAX_HEARTBEAT_MS)
}
