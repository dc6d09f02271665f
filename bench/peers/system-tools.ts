// Finding the peers' programs on this machine and, where the run may, installing them: Debian
// packages through apt-get when the benchmark runs as root, npm packages through npx. Nothing here
// fails the benchmark; each function answers what it found so the peer can say why it skipped.
import { execFile } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { progress } from '../cell.js'

/** The first executable `name` on PATH or in `extraDirs` (e.g. /usr/sbin for sshd), or null. */
export function findExecutable(name: string, extraDirs: readonly string[] = []): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs].filter(Boolean)
  for (const dir of dirs) {
    const path = join(dir, name)
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {
      // Not here.
    }
  }
  return null
}

/** What a command printed, or why it failed. */
export type CommandResult =
  | { readonly ok: true; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly error: string }

/** Run `command args` to completion (at most `ms`), capturing its output. */
export function runCommand(
  command: string,
  args: readonly string[],
  ms: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: ms, env, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, stdout, stderr })
        const lines = `${stderr}\n${err.message}`
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !/^npm warn/i.test(l))
        const why = err.killed ? `timed out after ${ms / 1000} s` : (lines.at(-1) ?? err.message)
        resolve({ ok: false, error: why })
      },
    )
  })
}

/** Whether this run may install Debian packages: root on a system with apt-get. */
export function canAptInstall(): boolean {
  return process.getuid?.() === 0 && findExecutable('apt-get', ['/usr/bin']) !== null
}

let aptQueue: Promise<unknown> = Promise.resolve()

/**
 * `apt-get install -y <packages>` (after `apt-get update` when the first try fails, as it does on
 * a machine whose package lists are stale or empty). Installs run one at a time. Resolves to null
 * on success, else to the reason.
 */
export function aptInstall(packages: readonly string[]): Promise<string | null> {
  const run = async (): Promise<string | null> => {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    progress(`  apt-get install -y ${packages.join(' ')} …\n`)
    const first = await runCommand('apt-get', ['install', '-y', ...packages], 300_000, env)
    if (first.ok) return null
    const update = await runCommand('apt-get', ['update'], 300_000, env)
    if (!update.ok) return `apt-get update failed: ${update.error}`
    const second = await runCommand('apt-get', ['install', '-y', ...packages], 300_000, env)
    return second.ok ? null : `apt-get install failed: ${second.error}`
  }
  const result = aptQueue.then(run, run)
  aptQueue = result
  return result
}

/** A program a peer needs, where to look beyond PATH, and the Debian package that has it. */
export interface Program {
  readonly name: string
  readonly dirs?: readonly string[]
  readonly debianPackage: string
}

/**
 * Find each of `programs`, installing the Debian packages of the missing ones first when the run
 * may. Resolves to the paths by name, or to the reason the peer must skip, e.g. "sshd not found
 * (apt-get install openssh-server)".
 */
export async function findOrInstall(
  programs: readonly Program[],
): Promise<{ paths: Record<string, string> } | { reason: string }> {
  const look = () => {
    const paths: Record<string, string> = {}
    const missing: Program[] = []
    for (const program of programs) {
      const path = findExecutable(program.name, program.dirs)
      if (path) paths[program.name] = path
      else missing.push(program)
    }
    return { paths, missing }
  }
  let found = look()
  if (found.missing.length === 0) return { paths: found.paths }
  const names = found.missing.map((p) => p.name).join(', ')
  const packages = [...new Set(found.missing.map((p) => p.debianPackage))]
  const hint = `apt-get install ${packages.join(' ')}`
  if (!canAptInstall()) return { reason: `${names} not found (${hint})` }
  const failed = await aptInstall(packages)
  found = look()
  if (found.missing.length === 0) return { paths: found.paths }
  return { reason: `${names} not found (${hint}: ${failed ?? 'installed, still not found'})` }
}
