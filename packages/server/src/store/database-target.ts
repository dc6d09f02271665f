/**
 * Which database a `BURROW_DATABASE_URL` names: a SQLite file (the default, under the data
 * directory) or a PostgreSQL server. Parsed the same way by `config.ts`, which refuses bad values
 * early, and by `openStore`, which connects.
 */

import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { redactUrl } from '../redact-url.js'

/** The database the store opens. */
export type DatabaseTarget =
  | { readonly dialect: 'sqlite'; readonly path: string }
  | { readonly dialect: 'postgres'; readonly url: string }

/** Name of the SQLite file created in the data directory when no database URL is set. */
export const DEFAULT_SQLITE_FILE = 'burrow.db'

/** The forms `parseDatabaseUrl` accepts, for error messages and help text. */
export const DATABASE_URL_FORMS =
  'postgres://user:pass@host:5432/db, postgresql://..., sqlite:<path> or file:<path>'

/**
 * The target a database URL names, or null when the form is not supported. Relative SQLite
 * paths resolve against `cwd`; `sqlite::memory:` opens a private in-memory database.
 */
export function parseDatabaseUrl(url: string, cwd: string): DatabaseTarget | null {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url)
    } catch {
      return null
    }
    return { dialect: 'postgres', url }
  }
  const lower = url.toLowerCase()
  if (lower.startsWith('sqlite:')) {
    // `sqlite:///abs/path` and `sqlite://rel/path` are common spellings of `sqlite:<path>`.
    const rest = url.slice('sqlite:'.length)
    return sqliteTarget(rest.startsWith('//') ? rest.slice(2) : rest, cwd)
  }
  if (lower.startsWith('file://')) {
    let path: string
    try {
      const parsed = new URL(url)
      if (parsed.search !== '' || parsed.hash !== '') return null
      path = fileURLToPath(parsed)
    } catch {
      return null
    }
    return sqliteTarget(path, cwd)
  }
  if (lower.startsWith('file:')) return sqliteTarget(url.slice('file:'.length), cwd)
  return null
}

/**
 * The database a store configuration names: `databaseUrl` when set, else `<dataDir>/burrow.db`.
 * Throws a plain `Error` for an unsupported URL (`loadConfig` refuses those before this runs).
 */
export function databaseTarget(
  config: { readonly databaseUrl: string | null; readonly dataDir: string },
  cwd: string = process.cwd(),
): DatabaseTarget {
  if (config.databaseUrl === null) {
    return { dialect: 'sqlite', path: join(resolve(cwd, config.dataDir), DEFAULT_SQLITE_FILE) }
  }
  const target = parseDatabaseUrl(config.databaseUrl, cwd)
  if (target === null) {
    throw new Error(
      `unsupported database URL "${redactDatabaseUrl(config.databaseUrl)}"; use one of: ${DATABASE_URL_FORMS}`,
    )
  }
  return target
}

/** How messages name a database, e.g. `SQLite database /srv/burrow/burrow.db`. */
export function describeDatabaseTarget(target: DatabaseTarget): string {
  return target.dialect === 'sqlite'
    ? `SQLite database ${target.path}`
    : `PostgreSQL database ${redactDatabaseUrl(target.url)}`
}

/** `url` with any password replaced by `***`, for messages and logs (`redactUrl`). */
export function redactDatabaseUrl(url: string): string {
  return redactUrl(url)
}

function sqliteTarget(path: string, cwd: string): DatabaseTarget | null {
  // A query string would silently become part of the file name: SQLite URI options are not used.
  if (path === '' || path.includes('?')) return null
  if (path === ':memory:') return { dialect: 'sqlite', path }
  return { dialect: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) }
}
