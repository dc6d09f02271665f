/**
 * The error for a `burrowd` command line that cannot be run: an unknown command or flag, a
 * missing or malformed value. The entry point prints its message and exits 1.
 */

/** The command line is wrong; `message` says how and what to type instead. */
export class UsageError extends Error {
  /** Stable code for the top-level error handler. */
  readonly code = 'usage'

  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}
