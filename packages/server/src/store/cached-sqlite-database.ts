/**
 * A better-sqlite3 database for Kysely's SQLite dialect that keeps its prepared statements.
 * Kysely prepares every query it runs; compiling the SQL again each time cost more than running
 * it (when the usage counters were committed per request, three statements each). Statements are
 * reused by their SQL text, the least recently used dropped past `capacity`.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely'

/** Statements kept by default: every query burrowd runs, with room for batch sizes. */
export const STATEMENT_CACHE_CAPACITY = 256

/** `database` for `new SqliteDialect({ database })`, preparing each SQL text once. */
export function cachedSqliteDatabase(
  database: SqliteDatabase,
  capacity = STATEMENT_CACHE_CAPACITY,
): KyselySqliteDatabase {
  const statements = new Map<string, Statement<unknown[]>>()
  return {
    close: () => {
      statements.clear()
      database.close()
    },
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql)
      // A statement still iterating (a streamed query) cannot run again: prepare another.
      if (cached !== undefined && !cached.busy) {
        // Map order is insertion order: re-inserting marks it most recently used.
        statements.delete(sql)
        statements.set(sql, cached)
        return cached
      }
      const statement = database.prepare<unknown[]>(sql)
      if (cached === undefined) {
        statements.set(sql, statement)
        if (statements.size > capacity) {
          const oldest = statements.keys().next().value
          if (oldest !== undefined) statements.delete(oldest)
        }
      }
      return statement
    },
  }
}
