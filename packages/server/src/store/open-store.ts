/**
 * Opening the store: SQLite through better-sqlite3 (the default, a file in the data directory)
 * or PostgreSQL through a pg pool, chosen by `databaseUrl`. Both end in the same Kysely-backed
 * `Store`, and the migrations run on open unless asked not to.
 */

import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import type { Dialect } from 'kysely'
import { boundedPgPool, DEFAULT_DATABASE_TIMEOUT_SECS } from './bounded-pg-pool.js'
import { databaseTarget, describeDatabaseTarget } from './database-target.js'
import type { DatabaseTarget } from './database-target.js'
import { DatabaseUnavailableError } from './database-unavailable-error.js'
import { cachedSqliteDatabase } from './cached-sqlite-database.js'
import { migrateToLatest } from './migrations/migrate-to-latest.js'
import type { Database } from './schema.js'
import { Store } from './store.js'
import type { StoreOptions } from './store.js'

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** Apply pending migrations before returning (default true). `burrowd migrate` passes false. */
  readonly migrate?: boolean
  /** The clock for created-at times. */
  readonly now?: () => Date
}

/** How long a SQLite writer waits for another process's lock before failing. */
const SQLITE_BUSY_TIMEOUT_MS = 5000

/**
 * Open the database `config` names (`databaseUrl`, else `<dataDir>/burrow.db`), creating the
 * SQLite file and its directory if needed, check that it answers, and return a `Store`, migrated
 * unless `options.migrate` is false. Throws `DatabaseUnavailableError` naming the database when
 * it cannot be opened, reached or migrated.
 */
export async function openStore(
  config: {
    readonly databaseUrl: string | null
    readonly dataDir: string
    /** How long a PostgreSQL connection or query may take (`BURROW_DATABASE_TIMEOUT_SECS`). */
    readonly databaseTimeoutSecs?: number
  },
  options: OpenStoreOptions = {},
): Promise<Store> {
  const target = databaseTarget(config)
  let store: Store
  let bound: (() => void) | undefined
  try {
    const timeoutMs = (config.databaseTimeoutSecs ?? DEFAULT_DATABASE_TIMEOUT_SECS) * 1000
    const created = createDialect(target, timeoutMs)
    bound = created.bound
    const storeOptions: StoreOptions = {
      onClose: created.onClose,
      ...(options.now ? { now: options.now } : {}),
    }
    store = new Store(new Kysely<Database>({ dialect: created.dialect }), storeOptions)
  } catch (error) {
    throw new DatabaseUnavailableError(describeDatabaseTarget(target), error)
  }
  const migrating = options.migrate ?? true
  try {
    if (migrating) await migrateToLatest(store.db)
    else await sql`select 1`.execute(store.db)
  } catch (error) {
    await store.close().catch(() => {})
    throw new DatabaseUnavailableError(describeDatabaseTarget(target), error)
  }
  // Migrations may rightly run long; what follows them is bounded (`burrowd migrate`, which
  // opens without migrating and then migrates, is not).
  if (migrating) bound?.()
  return store
}

function createDialect(
  target: DatabaseTarget,
  timeoutMs: number,
): {
  dialect: Dialect
  onClose: () => void
  /** Bound every query from now on (PostgreSQL; SQLite is a local file that does not stall). */
  bound?: () => void
} {
  if (target.dialect === 'postgres') {
    const pool = boundedPgPool(target.url, timeoutMs)
    // Kysely's destroy ends the pool.
    return { dialect: new PostgresDialect({ pool }), onClose: () => {}, bound: () => pool.bound() }
  }
  if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true })
  const database = new SqliteDatabase(target.path)
  database.pragma('journal_mode = WAL')
  // In WAL mode NORMAL still survives a crash of burrowd (only an OS crash or power loss can
  // undo the last commits) and spares an fsync per commit (measured: 0.9 ms → 0.06 ms), which
  // every write of history, counters and metrics would pay on the event loop.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`)
  // A file SQLite can only read opens without complaint; find out now, not at the first write.
  // Writing user_version back unchanged is a write that changes nothing.
  const version = Number(database.pragma('user_version', { simple: true }))
  database.pragma(`user_version = ${version}`)
  return {
    dialect: new SqliteDialect({ database: cachedSqliteDatabase(database) }),
    // Kysely closes the database only if it ever ran a query; close it in any case.
    onClose: () => {
      if (database.open) database.close()
    },
  }
}
