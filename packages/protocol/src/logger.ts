/**
 * The logger both executables use: levels error < warn < info < debug < trace, one line per
 * message with a level tag, written through a function the executable supplies (stderr).
 */

/** Log levels, least verbose first. */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace'

const RANK: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 }

/** What every component of the CLI logs through. */
export interface Logger {
  error(msg: string): void
  warn(msg: string): void
  info(msg: string): void
  debug(msg: string): void
  trace(msg: string): void
  /** True when messages at `level` are written (to skip building expensive ones). */
  enabled(level: LogLevel): boolean
}

/** A logger writing `LEVEL message` lines to `write` (stderr by default) at or below `level`. */
export function createLogger(level: LogLevel, write: (line: string) => void): Logger {
  const max = RANK[level]
  const at =
    (l: LogLevel) =>
    (msg: string): void => {
      if (RANK[l] <= max) write(`${l.toUpperCase().padEnd(5)} ${oneEntry(msg)}\n`)
    }
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    enabled: (l) => RANK[l] <= max,
  }
}

// Controls, line separators, and the direction marks and zero-width characters that reorder or
// hide what a terminal shows.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g

/**
 * `msg` as one entry of the log: messages carry others' text (a hostile server's tool names, an
 * agent's paths), which must not start a line that reads as an entry of its own, or send the
 * terminal escape sequences. A line end continues the entry on a line indented past the level
 * tags (a stack trace stays readable); other control characters are written as `\xNN`, direction
 * marks and zero-width characters as `\uNNNN`.
 */
function oneEntry(msg: string): string {
  UNSAFE.lastIndex = 0
  if (!UNSAFE.test(msg)) return msg
  return msg.replace(UNSAFE, (c) => {
    if (c === '\n') return '\n      '
    const code = c.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger('error', () => {})

/** True when `value` is a log level name. */
export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(RANK, value)
}
