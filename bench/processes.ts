// Every child process the benchmark starts, so all of them stop at the end, on errors and on
// Ctrl-C too. Each child leads its own process group: after it exits, whatever it spawned (a
// stdio server under `burrow up` or supergateway) is killed with the group.
import type { SpawnOptions } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { startChild, type Child } from '../test/helpers/child.js'

interface Entry {
  readonly name: string
  readonly child: Child
  /** Resolves once the child exited and its output pipes closed (all output was read). */
  readonly closed: Promise<void>
}

/** The children of one benchmark run. */
export class ProcessGroup {
  readonly #entries: Entry[] = []

  /** Start `command args`; it is stopped by `stop` or `stopAll`. */
  start(name: string, command: string, args: readonly string[], options: SpawnOptions = {}): Child {
    const child = startChild(command, args, { ...options, detached: true })
    const closed = new Promise<void>((resolve) => child.proc.once('close', () => resolve()))
    this.#entries.push({ name, child, closed })
    return child
  }

  /** Stop one child (SIGTERM, SIGKILL after `ms`) and what it left behind. */
  async stop(child: Child, ms = 5000): Promise<void> {
    const i = this.#entries.findIndex((e) => e.child === child)
    const entry = i === -1 ? undefined : this.#entries.splice(i, 1)[0]
    await child.stop('SIGTERM', ms)
    killGroup(child)
    // Let the last output arrive (lastLine reads it), but never hang on a pipe held elsewhere.
    if (entry) await Promise.race([entry.closed, sleep(2000, undefined, { ref: false })])
  }

  /** Stop every child still running, newest first. */
  async stopAll(): Promise<void> {
    while (this.#entries.length > 0) {
      const entry = this.#entries[this.#entries.length - 1]!
      await this.stop(entry.child).catch((err: Error) =>
        process.stderr.write(`bench: could not stop ${entry.name}: ${err.message}\n`),
      )
    }
  }
}

/** Kill the process group a child led, if anything of it is left. */
function killGroup(child: Child): void {
  const pid = child.proc.pid
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** The line that best explains why a child stopped: its last error line, else its last line. */
export function lastLine(child: Child): string {
  const lines = `${child.stdout}\n${child.stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(at |Node\.js v|\^+$|[{}]$|code: |url: )/.test(l))
  const errors = lines.filter((l) => /error/i.test(l))
  return errors[errors.length - 1] ?? lines[lines.length - 1] ?? '(no output)'
}
