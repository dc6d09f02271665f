/**
 * The CLI's logger: the shared logger writing to stderr. The level comes from `BURROW_LOG`
 * (wins) or the `-v` count; see `config.ts`.
 */
import { createLogger as createSharedLogger, type LogLevel, type Logger } from '@burrow/protocol'

export { isLogLevel, silentLogger } from '@burrow/protocol'
export type { LogLevel, Logger } from '@burrow/protocol'

/** A logger writing `LEVEL message` lines to stderr (or `write`) at or below `level`. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => void process.stderr.write(line),
): Logger {
  return createSharedLogger(level, write)
}
