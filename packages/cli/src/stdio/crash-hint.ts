/**
 * The one-time hint printed when a stdio server keeps crashing (docs/decisions.md). It names the
 * command and the last thing the server said on stderr, which is usually the actual problem
 * ("missing TOKEN", "cannot find module"), so the user need not rerun it by hand. Also how a
 * command is shown in such messages.
 */

/** What the hint reports. */
export interface CrashFacts {
  /** The command as the user wrote it. */
  readonly command: string
  /** Quick exits (or failed starts) in a row. */
  readonly times: number
  /** The last non-empty stderr line, '' if none. */
  readonly lastStderrLine: string
  /** The last spawn error, for a command that never started. */
  readonly lastError?: Error
}

/** The hint line, e.g. `stdio server keeps crashing: "node x.js" exited 3 times in a row; …`. */
export function crashHint(facts: CrashFacts): string {
  const last = facts.lastStderrLine
    ? `last stderr line: ${JSON.stringify(facts.lastStderrLine)}`
    : facts.lastError
      ? `last error: ${facts.lastError.message}`
      : 'it wrote nothing to stderr'
  return (
    `stdio server keeps crashing: ${JSON.stringify(facts.command)} exited ${facts.times} times ` +
    `in a row; ${last}`
  )
}

/** A command and its arguments as one readable line, quoting words a shell would split. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args]
    .map((word) => (/^[\w@%+=:,./\\-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ')
}
