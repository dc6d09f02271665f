/**
 * The PostgreSQL pool burrowd's store uses, bounded in time: a PostgreSQL that stalls (frozen,
 * swapping, behind a network that drops packets, or accepting connections and never answering)
 * fails the requests that need it after `BURROW_DATABASE_TIMEOUT_SECS`, which are answered `503`
 * with `Retry-After` (database-stalled.ts), rather than holding each of them, and its body, for
 * as long as the stall lasts. Found by a hostile review, as Redis's stall was before it.
 *
 * Getting a connection (from the pool, or a new one with its start-up exchange) waits at most the
 * bound (pg's `connectionTimeoutMillis`); so does each query once `bound()` was called, which
 * `openStore` does after the migrations, which may rightly run long. A query that timed out may
 * still be running on its connection, whose next query would wait behind it: that connection
 * refuses any further query at once (a transaction's rollback too; the server rolls it back when
 * the connection closes) and is destroyed when it is released, not handed out again. The server
 * then ends the statement within a second (`client_connection_check_interval`, below), unless it
 * completed meanwhile (a purge's `DELETE` is then done, though it failed here) or the server cannot
 * see the connection close (a network that drops packets: it runs to its end).
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import pg from 'pg'

/** Seconds a PostgreSQL connection or query may take by default (`BURROW_DATABASE_TIMEOUT_SECS`). */
export const DEFAULT_DATABASE_TIMEOUT_SECS = 15

/** How often PostgreSQL looks, while a statement runs, for its connection being gone (ms). */
const CONNECTION_CHECK_MS = 1000

/** pg's message for a query that outlived `query_timeout`. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout'

/** The refusal of a query on a connection whose earlier query timed out. */
export const TIMED_OUT_BEFORE_MESSAGE =
  'Query refused: an earlier query on its connection timed out'

/** The errors this module gave because PostgreSQL could not be reached or went away. */
const unavailable = new WeakSet<Error>()
/** Those of them given before a query was sent: no connection was had. */
const unconnected = new WeakSet<Error>()

/**
 * True for an error a bounded pool gave because its PostgreSQL could not be reached (refused,
 * restarting) or went away under a query (database-stalled.ts answers it as a stall is).
 */
export function isDatabaseAway(err: Error): boolean {
  return unavailable.has(err)
}

/** True for an error a bounded pool gave when it had no connection for a query: none was sent. */
export function isUnconnected(err: Error): boolean {
  return unconnected.has(err)
}

/**
 * Rethrow `err`, noted as the database's failure unless it is the statement's: anything but an
 * error the server answered, or one of the server's own classes of being unavailable (`08`
 * connection, `53` insufficient resources, `57` shut down, starting up or cancelling).
 */
function rethrowNoted(err: unknown): never {
  if (err instanceof Error) {
    const answered = err instanceof pg.DatabaseError
    if (!answered || /^(08|53|57)/.test(err.code ?? '')) unavailable.add(err)
  }
  throw err
}

/** A pool Kysely's `PostgresDialect` takes, whose queries can be bounded once open. */
export interface BoundedPgPool extends PostgresPool {
  /** From now on, every query fails after the bound. */
  bound(): void
}

/** A pg pool on `url` whose connections (and, once `bound()`, queries) wait at most `timeoutMs`. */
export function boundedPgPool(url: string, timeoutMs: number): BoundedPgPool {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  // An idle connection dropped by the server must not crash burrowd: the pool discards it and
  // the next query opens a new one (and reports its own error if the server is still away).
  pool.on('error', () => {})
  // PostgreSQL reads a closed connection only when the statement running on it ends: a statement
  // whose caller timed out (and closed its connection) ran on to its end, holding a backend and
  // its locks, one more per retry. Asked to look every second while a statement runs, the server
  // ends it once it sees the connection gone (PostgreSQL 14 and later, on Linux; elsewhere the
  // setting is refused, and statements run on as before).
  pool.on('connect', (client) => {
    client.query(`set client_connection_check_interval = ${CONNECTION_CHECK_MS}`).catch(() => {})
  })
  let queryTimeoutMs = 0
  /** One wrapper per pg client (Kysely keeps its connections by client), with its last failure. */
  const wrappers = new WeakMap<
    pg.PoolClient,
    { client: PostgresPoolClient; failed: Error | null }
  >()
  return {
    bound() {
      queryTimeoutMs = timeoutMs
    },
    async connect() {
      const raw = await pool.connect().catch((err: unknown) => {
        if (err instanceof Error) unconnected.add(err)
        return rethrowNoted(err)
      })
      let entry = wrappers.get(raw)
      if (entry === undefined) {
        const state: { client: PostgresPoolClient; failed: Error | null } = {
          failed: null,
          client: {
            query: ((text: string | PostgresCursor<unknown>, values?: readonly unknown[]) => {
              // Not behind a query that timed out: it may still be running, and what follows it
              // would wait for it (a rollback, another bound), or commit with it (a statement in
              // the same transaction whose caller went on). The connection is closed on release.
              if (state.failed !== null) {
                return Promise.reject(new Error(TIMED_OUT_BEFORE_MESSAGE))
              }
              // A cursor (Kysely's streams) goes as it came.
              if (typeof text !== 'string') return raw.query(text as never)
              const config: pg.QueryConfig & { query_timeout?: number } = {
                text,
                values: values as unknown[],
              }
              if (queryTimeoutMs > 0) config.query_timeout = queryTimeoutMs
              return raw.query(config).then(
                (result) => result as unknown as PostgresQueryResult<unknown>,
                (err: Error) => {
                  if (err.message === QUERY_TIMEOUT_MESSAGE) state.failed = err
                  rethrowNoted(err)
                },
              )
            }) as PostgresPoolClient['query'],
            release() {
              const failed = state.failed
              state.failed = null
              // A connection whose query timed out is closed, not reused.
              raw.release(failed ?? undefined)
            },
          },
        }
        // A connection the server drops while it is lent out (a restart, a failover, an operator
        // ending the backend) emits 'error', which pg's pool listens to only while the client is
        // idle: unheard, it crashed burrowd. The query running on it fails with the error, and
        // the pool discards the client when it is released (pg marks it not queryable).
        raw.on('error', () => {})
        entry = state
        wrappers.set(raw, entry)
      }
      return entry.client
    },
    end: () => pool.end(),
  }
}
