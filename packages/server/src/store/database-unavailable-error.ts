/**
 * The error `openStore` throws when the database cannot be opened or reached: a missing
 * directory permission, a PostgreSQL server that refuses connections, a failed migration. It names
 * the database so the operator knows which setting to check.
 */

/** The configured database could not be opened; `cause` holds the driver's error. */
export class DatabaseUnavailableError extends Error {
  /** Stable code for the top-level error handler. */
  readonly code = 'database_unavailable'

  constructor(database: string, cause: unknown) {
    super(`cannot open the ${database}: ${describeCause(cause)}`, { cause })
    this.name = 'DatabaseUnavailableError'
  }
}

/** Driver error codes that mean burrowd may not write where the database lives. */
const NOT_WRITABLE = new Set(['SQLITE_READONLY', 'SQLITE_CANTOPEN', 'EACCES', 'EPERM', 'EROFS'])

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  const code = (cause as { code?: unknown }).code
  if (typeof code === 'string' && NOT_WRITABLE.has(code.split('_').slice(0, 2).join('_'))) {
    return (
      `${cause.message}; burrowd must be able to create and write files there ` +
      '(check the permissions and that the file system is not read-only, or set BURROW_DATA_DIR)'
    )
  }
  // Node's AggregateError for a refused multi-address connect has an empty message.
  if (cause.message !== '') return cause.message
  return typeof code === 'string' ? code : cause.name
}
