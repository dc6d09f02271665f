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
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
])

/**
 * pg's and pg-pool's messages for a connection or query that timed out or was cut, and the
 * pool's refusal of a query behind one that timed out. That refusal is not "never sent": Kysely
 * throws a failed transaction's rollback error, here that refusal, for the statement before it.
 */
const STALLS = new Set([
  ...UNSENT,
  QUERY_TIMEOUT_MESSAGE,
  TIMED_OUT_BEFORE_MESSAGE,
  'Connection terminated unexpectedly',
])

/**
 * True for an error of a PostgreSQL that stalled, could not be reached or went away, or one
 * wrapping it (its `cause`: the usage counters' write queue wraps what the database did).
 */
export function isDatabaseStalled(err: Error): boolean {
  return causes(err).some((e) => STALLS.has(e.message) || isDatabaseAway(e))
}

/**
 * True for a stall before the statement was sent: it did nothing. Any other stall leaves its
 * outcome unknown (the server may run and commit it after the client stopped waiting), so what
 * it wrote must not be written again where that would count twice.
 */
export function neverSent(err: Error): boolean {
  return causes(err).some((e) => UNSENT.has(e.message) || isUnconnected(e))
}

/** `err` and the errors it wraps, each once (a cycle of causes ends). */
function causes(err: Error): Error[] {
  const chain: Error[] = []
  for (let e: unknown = err; e instanceof Error && !chain.includes(e); e = e.cause) chain.push(e)
  return chain
}

/** Seconds a caller is asked to wait before trying again. */
export const DATABASE_RETRY_AFTER_S = 5
