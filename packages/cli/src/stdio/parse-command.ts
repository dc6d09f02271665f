/**
 * Turns the value of `--stdio "<CMD>"` into a program and its arguments. The string is split with
 * shell-style quoting and `$VAR` expansion, but nothing runs through a shell: pipes, redirections,
 * globs and the like are refused with a message that says how to get them (`sh -c '…'`).
 */
import { parse, type ParseEntry } from 'shell-quote'

/** A program to spawn and its arguments, as `spawn()` takes them. */
export interface ParsedCommand {
  readonly command: string
  readonly args: readonly string[]
}

/** Options of `parseCommand`. */
export interface ParseCommandOptions {
  /**
   * The platform whose conventions apply. On Windows the backslash is a path separator, so `^`
   * (cmd's escape character) escapes instead and `C:\tools\server.exe` survives.
   */
  readonly platform?: NodeJS.Platform
}

// A leading `NAME=value` word is an environment assignment in a shell; spawn would look for a
// program called `NAME=value` and fail with a confusing "not found".
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

/**
 * Split `cmd` into a program and arguments, expanding `$VAR` and `${VAR}` from `env` (unset
 * variables expand to the empty string, as in a shell). Throws an Error naming the problem when
 * the string is empty or uses shell syntax that only a shell could honour.
 */
export function parseCommand(
  cmd: string,
  env: Readonly<Record<string, string | undefined>>,
  options: ParseCommandOptions = {},
): ParsedCommand {
  const platform = options.platform ?? process.platform
  const entries = parse(cmd, env, platform === 'win32' ? { escape: '^' } : undefined)
  const words = entries.map((entry) => wordOf(entry, cmd))
  const [command, ...args] = words
  if (command === undefined || command.trim() === '') {
    throw new Error(`--stdio "${cmd}": the command is empty; give the program to run`)
  }
  if (ASSIGNMENT.test(command)) {
    throw new Error(
      `--stdio "${cmd}": environment assignments such as ${command} are not supported; ` +
        'set the variable in the environment of burrow instead',
    )
  }
  return { command, args }
}

/** The plain word behind one parse entry, or an Error explaining why it needs a shell. */
function wordOf(entry: ParseEntry, cmd: string): string {
  if (typeof entry === 'string') return entry
  const viaShell = `run it through sh -c '…' (or cmd /c on Windows)`
  if ('comment' in entry) {
    throw new Error(
      `--stdio "${cmd}": an unquoted # starts a shell comment; quote the argument that contains it`,
    )
  }
  if (entry.op === 'glob') {
    throw new Error(
      `--stdio "${cmd}": wildcards such as ${entry.pattern} are not expanded; ` +
        `quote them to pass them literally, or ${viaShell}`,
    )
  }
  throw new Error(
    `--stdio "${cmd}": shell operators such as "${entry.op}" are not supported; ${viaShell}`,
  )
}
