/**
 * Whether a request failed because burrowd's PostgreSQL did not answer in time, could not be
 * reached or went away (bounded-pg-pool.ts): such a request is answered `503` with
 * `Retry-After`, saying so, rather than as an internal error, since trying again shortly is what
 * the caller should do.
 */
import {
  isDatabaseAway,
  isUnconnected,
  QUERY_TIMEOUT_MESSAGE,
  TIMED_OUT_BEFORE_MESSAGE,
} from './bounded-pg-pool.js'

/** pg's and pg-pool's messages for a query that never reached the database: no connection. */
const UNSENT = new Set([
  TIMED_OUT_BEFORE_MESSAGE,
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
])

/** pg's and pg-pool's messages for a connection or query that timed out or was cut. */
const STALLS = new Set([...UNSENT, QUERY_TIMEOUT_MESSAGE, 'Connection terminated unexpectedly'])

/** True for an error of a PostgreSQL that stalled, could not be reached or went away. */
export function isDatabaseStalled(err: Error): boolean {
  return STALLS.has(err.message) || isDatabaseAway(err)
}

/**
 * True for a stall before the statement was sent: it did nothing. Any other stall leaves its
 * outcome unknown (the server may run and commit it after the client stopped waiting), so what
 * it wrote must not be written again where that would count twice.
 */
export function neverSent(err: Error): boolean {
  return UNSENT.has(err.message) || isUnconnected(err)
}

/** Seconds a caller is asked to wait before trying again. */
export const DATABASE_RETRY_AFTER_S = 5
