/**
 * The CLI's two error kinds for the top-level catch: a UsageError is the user's to fix (message,
 * exit 1); an ExitError ends the process with a specific status after its message.
 */

/** Bad flags, values or files: print the message and exit 1. */
export class UsageError extends Error {
  readonly code = 'usage'
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Exit statuses of `burrow`, documented in the README. */
export const EXIT = {
  ok: 0,
  usage: 1,
  authFailed: 3,
  replaced: 4,
} as const

/** End the process with `status` after printing `message`. */
export class ExitError extends Error {
  readonly code = 'exit'
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.name = 'ExitError'
    this.status = status
  }
}
