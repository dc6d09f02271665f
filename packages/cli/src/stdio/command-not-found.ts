/**
 * A stdio server whose command was never found: the first spawn failed with ENOENT, or the first
 * child (a shell, `env`, a wrapper script) exited with status 127, the shells' "command not
 * found". Restarting cannot help, so the supervisor gives up and says which program is missing.
 */

/** The stdio command cannot be found; the supervisor stopped trying. */
export class CommandNotFoundError extends Error {
  readonly code = 'command_not_found'
  /** The missing program, as the user or the shell named it. */
  readonly program: string

  constructor(program: string, detail?: string) {
    const where = /[/\\]/.test(program)
      ? 'check that the file exists and is executable'
      : 'check the spelling, or that its directory is in PATH'
    super(`command not found: ${program}${detail ? ` (${detail})` : ''}; ${where}`)
    this.name = 'CommandNotFoundError'
    this.program = program
  }
}

/**
 * The program a shell or `env` said it could not find, from its stderr line: `sh: 1: foo: not
 * found`, `bash: foo: command not found`, `zsh:1: command not found: foo`,
 * `/usr/bin/env: 'foo': No such file or directory`. Null when the line says none of these.
 */
export function programNotFoundIn(stderrLine: string): string | null {
  const line = stderrLine.trim()
  const patterns = [
    /command not found: (\S+)$/,
    /(?:^|:\s)([^\s:]+): (?:command )?not found$/,
    /env: ['‘]?([^'’:]+)['’]?: No such file or directory$/,
  ]
  for (const pattern of patterns) {
    const m = pattern.exec(line)
    if (m?.[1]) return m[1]
  }
  return null
}
