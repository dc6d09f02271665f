/**
 * When a failed webhook delivery is tried again. Eight attempts spread over about a day:
 * immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure (Svix's
 * schedule, the shorter sibling of the Standard Webhooks example), each delay stretched or
 * shrunk by up to 20% so receivers that failed together are not retried in lockstep. A
 * `Retry-After` from a throttling receiver is honoured: the next attempt is never earlier.
 */

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/** Delay after the 1st, 2nd, … failed attempt, before jitter. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]

/**
 * Delay before an attempt that was never tried is made again (burrowd's own name lookups were
 * busy): it is not counted, so it does not move along the schedule.
 */
export const BUSY_RETRY_MS = 5 * SECOND

/** Attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** Each delay is multiplied by a factor in [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2

/** The longest `Retry-After` honoured; a receiver cannot park a delivery for longer. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR

/**
 * Milliseconds until the next attempt after `attempts` attempts failed, or null when that was the
 * last. `random` returns a number in [0, 1); `retryAfterMs` is the receiver's `Retry-After`.
 */
export function retryDelay(
  attempts: number,
  random: () => number,
  retryAfterMs: number | null = null,
): number | null {
  const base = RETRY_DELAYS_MS[attempts - 1]
  if (base === undefined) return null
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()))
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS))
}

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds or an HTTP date. Null when
 * absent or malformed; a date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  const text = value?.trim() ?? ''
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND
  if (!/[a-z]/i.test(text)) return null
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime())
}
