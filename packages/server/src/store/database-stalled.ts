/**
 * Whether a request failed because burrowd's PostgreSQL did not answer in time or went away
 * (bounded-pg-pool.ts): such a request is answered `503` with `Retry-After`, saying so, rather
 * than as an internal error, since trying again shortly is what the caller should do.
 */
import { QUERY_TIMEOUT_MESSAGE, TIMED_OUT_BEFORE_MESSAGE } from './bounded-pg-pool.js'

/** pg's and pg-pool's messages for a connection or query that timed out or was cut. */
const STALLS = new Set([
  QUERY_TIMEOUT_MESSAGE,
  TIMED_OUT_BEFORE_MESSAGE,
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
])

/** True for an error of a PostgreSQL that stalled or went away. */
export function isDatabaseStalled(err: Error): boolean {
  return STALLS.has(err.message)
}

/** Seconds a caller is asked to wait before trying again. */
export const DATABASE_RETRY_AFTER_S = 5
