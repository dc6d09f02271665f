/**
 * The error `loadConfig` throws for a bad `BURROW_*` value. A user error: the operator fixes the
 * environment, so the message names the variable, the value and what is accepted.
 */

/** A `BURROW_*` variable holds a value burrowd cannot use. */
export class ConfigError extends Error {
  /** Stable code for the top-level error handler. */
  readonly code = 'config'
  /** The environment variable at fault, e.g. `BURROW_LISTEN`. */
  readonly variable: string

  constructor(variable: string, message: string) {
    super(message)
    this.name = 'ConfigError'
    this.variable = variable
  }
}
