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

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  // Node's AggregateError for a refused multi-address connect has an empty message.
  if (cause.message !== '') return cause.message
  const code = (cause as { code?: unknown }).code
  return typeof code === 'string' ? code : cause.name
}
