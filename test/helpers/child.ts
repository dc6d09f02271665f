// Real child processes for tests: spawn, capture output, wait for a line, stop and await exit.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'

/** A running child with its output so far. */
export interface Child {
  readonly proc: ChildProcess
  stdout: string
  stderr: string
  /**
   * Resolves with the exit code (or the signal name) once the output is read to the end ('exit'
   * can come before the last lines are read; a grandchild holding the pipes is waited for 2 s).
   */
  readonly exited: Promise<number | string>
  /** Wait until stdout+stderr matches `pattern`; rejects after `ms` with the output so far. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>
  /** Send a signal and wait for exit (SIGKILL after `ms`). */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<number | string>
}

/** Start `command args` and collect its output. */
export function startChild(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): Child {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  const child: Child = {
    proc,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => {
      const closed = new Promise<void>((done) => proc.once('close', () => done()))
      proc.once('exit', (code, signal) => {
        const result = code ?? signal ?? -1
        const timer = setTimeout(() => resolve(result), 2_000)
        void closed.then(() => {
          clearTimeout(timer)
          resolve(result)
        })
      })
    }),
    waitFor(pattern, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = (child.stdout + child.stderr).match(pattern)
          if (m) {
            cleanup()
            resolve(m)
          }
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(
              `timed out waiting for ${pattern}; output:\n${child.stdout}\n--- stderr ---\n${child.stderr}`,
            ),
          )
        }, ms)
        const onExit = () => {
          check()
          cleanup()
          reject(
            new Error(
              `process exited before ${pattern}; output:\n${child.stdout}\n--- stderr ---\n${child.stderr}`,
            ),
          )
        }
        const cleanup = () => {
          clearTimeout(timer)
          proc.stdout?.off('data', check)
          proc.stderr?.off('data', check)
          proc.off('exit', onExit)
        }
        proc.stdout?.on('data', check)
        proc.stderr?.on('data', check)
        proc.once('exit', onExit)
        check()
      })
    },
    async stop(signal = 'SIGTERM', ms = 15_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return child.exited
      proc.kill(signal)
      const timer = setTimeout(() => proc.kill('SIGKILL'), ms)
      const result = await child.exited
      clearTimeout(timer)
      return result
    },
  }
  proc.stdout?.setEncoding('utf8').on('data', (c: string) => (child.stdout += c))
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => (child.stderr += c))
  return child
}
