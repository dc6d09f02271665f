/**
 * Runs one stdio MCP server as a child process and keeps it running (docs/decisions.md, The stdio
 * bridge): newline-delimited JSON on stdin/stdout, stderr re-logged line by line, restarts with
 * backoff, a one-time hint when the command keeps crashing, and the SDK's shutdown sequence (end
 * stdin, SIGTERM, SIGKILL).
 *
 * Unlike the MCP SDK, which hands the child a short allow-list of variables, the child inherits the
 * full environment of burrow: users expect `burrow up --stdio "npx …"` to behave as it does in their
 * terminal (PATH, PATHEXT, COMSPEC, proxies, tokens), and the SDK's list breaks Windows shims;
 * but burrow's own secrets (server-environment.ts).
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { EventEmitter } from 'node:events'
import crossSpawn from 'cross-spawn'
import { silentLogger, type Logger } from '../log/logger.js'
import { readChildOutput } from './child-output.js'
import { serverEnvironment } from './server-environment.js'
import { childReplier } from './child-replier.js'
import { CommandNotFoundError, programNotFoundIn } from './command-not-found.js'
import { commandLine, crashHint } from './crash-hint.js'
import { DEFAULT_RESTART_TIMING, RestartPolicy, type RestartTiming } from './restart-policy.js'
import { StdioBackloggedError, StdioUnavailableError } from './stdio-send-errors.js'
import {
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_QUEUED_BYTES,
  EXIT_AFTER_STDOUT_END_MS,
  STDERR_AFTER_EXIT_MS,
  type StdioSupervisorEvents,
  type StdioSupervisorOptions,
} from './stdio-supervisor-options.js'
import { LeftoverGroups } from './leftover-groups.js'
import { stopChild } from './stop-child.js'

export { StdioBackloggedError, StdioUnavailableError } from './stdio-send-errors.js'
export { DEFAULT_MAX_QUEUED_BYTES } from './stdio-supervisor-options.js'
export type {
  SpawnFunction,
  StdioExit,
  StdioSupervisorEvents,
  StdioSupervisorOptions,
} from './stdio-supervisor-options.js'

interface RunningChild {
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

type State = 'idle' | 'running' | 'waiting' | 'failed' | 'closing' | 'closed'

/** Spawns a stdio MCP server, restarts it when it exits, and stops it on `close()`. */
export class StdioSupervisor extends EventEmitter<StdioSupervisorEvents> {
  readonly #opts: StdioSupervisorOptions
  readonly #log: Logger
  readonly #label: string
  readonly #policy: RestartPolicy
  readonly #timing: RestartTiming
  #state: State = 'idle'
  #running: RunningChild | undefined
  #generation = 0
  #restartTimer: NodeJS.Timeout | undefined
  #restartAt = 0
  #lastStderrLine = ''
  #lastError: Error | undefined
  #hinted = false
  #closing: Promise<void> | undefined
  readonly #leftovers = new LeftoverGroups()
  readonly #started: Promise<void>
  #markStarted: () => void = () => {}
  #failStart: (err: CommandNotFoundError) => void = () => {}
  readonly #failure: Promise<CommandNotFoundError>
  #markFailed: (err: CommandNotFoundError) => void = () => {}

  constructor(options: StdioSupervisorOptions) {
    super()
    this.#opts = options
    this.#log = options.logger ?? silentLogger
    this.#label = options.label ?? 'stdio'
    this.#timing = { ...DEFAULT_RESTART_TIMING, ...options.timing }
    this.#policy = new RestartPolicy(this.#timing)
    this.#started = new Promise<void>((resolve, reject) => {
      this.#markStarted = resolve
      this.#failStart = reject
    })
    // Nobody need wait for the start: a failure is also reported by `failure()` and 'exit'.
    this.#started.catch(() => {})
    this.#failure = new Promise((resolve) => (this.#markFailed = resolve))
  }

  /**
   * Resolves when the first child has started (or the supervisor closes first); rejects with
   * `CommandNotFoundError` when its command was not found.
   */
  started(): Promise<void> {
    return this.#started
  }

  /**
   * Resolves with the reason if the supervisor gave up because the command was never found
   * (which `started()` may already have reported); stays pending otherwise.
   */
  failure(): Promise<CommandNotFoundError> {
    return this.#failure
  }

  /** The command line shown in messages. */
  get displayCommand(): string {
    return this.#opts.displayCommand ?? commandLine(this.#opts.command, this.#opts.args ?? [])
  }

  /** Generation of the current (or last) child; 0 before `start()`. */
  get generation(): number {
    return this.#generation
  }

  /** Process id of the running child, if one runs. */
  get pid(): number | undefined {
    return this.#running?.child.pid
  }

  /** True while a child is running and accepting messages. */
  get running(): boolean {
    return this.#state === 'running'
  }

  /** The last non-empty line the child wrote to stderr ('' if none yet). */
  get lastStderrLine(): string {
    return this.#lastStderrLine
  }

  /** Start the first child. Listeners should be attached before. */
  start(): void {
    if (this.#state !== 'idle') throw new Error('StdioSupervisor.start() called twice')
    this.#spawnChild()
  }

  /**
   * Write one JSON-RPC message to the child's stdin. Throws `StdioUnavailableError` while no child
   * runs (between a crash and its restart, or after close): messages are never carried over to a
   * replacement child, which knows nothing of the sessions they belong to.
   */
  send(message: unknown): void {
    const stdin = this.#running?.child.stdin
    if (this.#state !== 'running' || !stdin?.writable) {
      throw new StdioUnavailableError(this.#downReason())
    }
    // A child busy in a long call reads nothing meanwhile: what waits for it is bounded.
    const backlog = this.backlog()
    if (backlog !== undefined) throw new StdioBackloggedError(backlog)
    stdin.write(`${JSON.stringify(message)}\n`)
  }

  /** Why `send()` would refuse now because the child has not read what waits, or undefined. */
  backlog(): string | undefined {
    const waiting = this.#running?.child.stdin?.writableLength ?? 0
    const bound = this.#opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES
    if (waiting < bound) return undefined
    return (
      `the stdio server has not read the last ${Math.round(waiting / 1024)} KiB sent to it ` +
      `(at most ${Math.round(bound / 1024)} KiB may wait); try again later`
    )
  }

  /** Stop for good: end stdin, wait, SIGTERM, wait, SIGKILL. No restart follows. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown()
    return this.#closing
  }

  async #shutdown(): Promise<void> {
    this.#state = 'closing'
    clearTimeout(this.#restartTimer)
    this.#markStarted()
    const running = this.#running
    if (running) {
      const outcome = await stopChild(
        running.child,
        running.exited,
        this.#opts.closeGraceMs ?? 2_000,
      )
      if (outcome === 'SIGKILL') {
        this.#log.warn(`[${this.#label}] stdio server ignored stdin closing and SIGTERM; killed it`)
      }
      // A process that left the group (a daemon of its own) may still hold the pipes: they are
      // not waited for.
      running.child.stdout?.destroy()
      running.child.stderr?.destroy()
    }
    await this.#leftovers.stopped()
    this.#state = 'closed'
  }

  #spawnChild(): void {
    this.#generation += 1
    const generation = this.#generation
    const { command, args = [], env, cwd } = this.#opts
    let child: ChildProcess
    try {
      child = (this.#opts.spawn ?? defaultSpawn)(command, args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...serverEnvironment(process.env), ...env },
        cwd,
        shell: false,
        windowsHide: true,
        // A process group of its own: stopping it reaches what it started (stop-child.ts).
        detached: process.platform !== 'win32',
      })
    } catch (err) {
      this.#onEnded(generation, 0, null, null, err instanceof Error ? err : new Error(String(err)))
      return
    }
    let markExited = (): void => {}
    const exited = new Promise<void>((resolve) => (markExited = resolve))
    const startedAt = this.#now()
    const running = { child, exited }
    this.#running = running
    this.#state = 'running'
    this.#wireOutput(child, generation)
    child.stdout?.once('end', () => this.#onStdoutEnd(running))
    let ended = false
    const end = (
      code: number | null,
      signal: NodeJS.Signals | null,
      error?: Error,
      at = this.#now(),
    ): void => {
      if (ended) return
      ended = true
      markExited()
      // What a child that exited on its own started is stopped (a shutdown stops its group).
      if (!this.#closing) this.#leftovers.stop(child, this.#opts.closeGraceMs ?? 2_000)
      const runtimeMs = error && child.pid === undefined ? 0 : at - startedAt
      this.#onEnded(generation, runtimeMs, code, signal, error)
    }
    child.once('exit', (code, signal) => {
      // A first child that exits with 127 is judged by its last stderr line (which program the
      // shell could not find): the exit can come before that line was read, so wait for stderr
      // to close, briefly (a grandchild may hold it open).
      const stderr = child.stderr
      if (generation !== 1 || code !== 127 || stderr === null || stderr.closed) {
        end(code, signal)
        return
      }
      const at = this.#now()
      const timer = setTimeout(
        () => end(code, signal, undefined, at),
        this.#opts.stderrAfterExitMs ?? STDERR_AFTER_EXIT_MS,
      )
      stderr.once('close', () => {
        clearTimeout(timer)
        end(code, signal, undefined, at)
      })
    })
    child.on('error', (err: NodeJS.ErrnoException) => {
      // Not every 'error' ends the process (a failed kill does not); a missing pid or ENOENT
      // (cross-spawn reports a missing Windows command this way) means it never ran.
      if (child.pid === undefined || err.code === 'ENOENT') end(null, null, err)
      else this.#log.debug(`[${this.#label}] child process error: ${err.message}`)
    })
    // Announce only a process that really started, so waiters never act on a failed spawn.
    child.once('spawn', () => {
      this.#markStarted()
      this.emit('spawn', generation, child.pid)
      if (generation > 1) this.emit('restart', generation)
    })
  }

  /**
   * A child that closed its stdout can answer nothing more, however long it runs: unless it exits
   * by itself (a normal exit closes stdout first), it is stopped, and restarted as after a crash.
   */
  #onStdoutEnd(running: RunningChild): void {
    const timer = setTimeout(() => {
      if (this.#running !== running || this.#state !== 'running') return
      this.#log.warn(
        `[${this.#label}] stdio server closed its stdout but kept running; stopping it`,
      )
      void stopChild(running.child, running.exited, this.#opts.closeGraceMs ?? 2_000)
    }, this.#opts.exitAfterStdoutEndMs ?? EXIT_AFTER_STDOUT_END_MS)
    void running.exited.then(() => clearTimeout(timer))
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)()
  }

  #wireOutput(child: ChildProcess, generation: number): void {
    const label = this.#label
    readChildOutput(child, this.#opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, {
      onMessage: (message) => this.emit('message', message, generation),
      onStderrLine: (line) => {
        this.#lastStderrLine = line.trim()
        this.#log.info(`[${label}] ${line}`)
      },
      onSkipped: (description, level) => this.#log[level](`[${label}] ${description}`),
      onReply: childReplier(child, {
        current: () => this.#running?.child === child,
        backlog: () => this.backlog(),
        warn: (text) => this.#log.warn(`[${label}] ${text}`),
      }),
    })
    // EPIPE when the child dies with writes pending; the exit handler reports the death itself.
    child.stdin?.on('error', (err) => this.#log.debug(`[${label}] stdin: ${err.message}`))
  }

  #onEnded(
    generation: number,
    runtimeMs: number,
    code: number | null,
    signal: NodeJS.Signals | null,
    error: Error | undefined,
  ): void {
    this.#running = undefined
    if (error) this.#lastError = error
    if (this.#state === 'closing' || this.#state === 'closed') {
      this.emit('exit', { generation, code, signal, error, runtimeMs, restartInMs: null })
      return
    }
    const notFound = this.#notFound(generation, runtimeMs, code, error)
    if (notFound) {
      this.#lastError = notFound
      this.#state = 'failed'
      this.#log.debug(`[${this.#label}] ${notFound.message}; not restarting it`)
      this.#failStart(notFound)
      this.#markFailed(notFound)
      this.emit('exit', { generation, code, signal, error: notFound, runtimeMs, restartInMs: null })
      return
    }
    const { delayMs, consecutiveCrashes } = this.#policy.onExit(runtimeMs)
    const how = error
      ? `failed to start (${error.message})`
      : `exited (${exitDescription(code, signal)})`
    this.#log.warn(
      `[${this.#label}] stdio server ${how} after ${seconds(runtimeMs)}; restarting in ${seconds(delayMs)}`,
    )
    if (consecutiveCrashes >= this.#timing.crashHintAfter && !this.#hinted) {
      this.#hinted = true
      this.#log.warn(
        crashHint({
          command: this.displayCommand,
          times: consecutiveCrashes,
          lastStderrLine: this.#lastStderrLine,
          lastError: this.#lastError,
        }),
      )
    }
    this.#state = 'waiting'
    this.#restartAt = this.#now() + delayMs
    this.#restartTimer = setTimeout(() => {
      if (this.#state === 'waiting') this.#spawnChild()
    }, delayMs)
    this.emit('exit', { generation, code, signal, error, runtimeMs, restartInMs: delayMs })
  }

  /**
   * Whether the first child shows that the command does not exist: its spawn failed with ENOENT,
   * or it exited at once with 127, what shells and `env` return for a command they cannot find.
   * Later children are restarted as usual (a command may disappear during an upgrade and return).
   */
  #notFound(
    generation: number,
    runtimeMs: number,
    code: number | null,
    error: NodeJS.ErrnoException | undefined,
  ): CommandNotFoundError | null {
    if (generation !== 1) return null
    if (error?.code === 'ENOENT') return new CommandNotFoundError(this.#opts.command)
    if (code !== 127 || runtimeMs >= this.#timing.stableAfterMs) return null
    const said = this.#lastStderrLine
    const detail = `${JSON.stringify(this.displayCommand)} exited with status 127${said ? `: ${JSON.stringify(said)}` : ''}`
    return new CommandNotFoundError(programNotFoundIn(said) ?? this.displayCommand, detail)
  }

  #downReason(): string {
    const what = `stdio server ${JSON.stringify(this.displayCommand)}`
    if (this.#state === 'failed') return `${what} cannot run: ${this.#lastError?.message ?? ''}`
    if (this.#state === 'waiting') {
      const wait = Math.max(0, this.#restartAt - this.#now())
      return `${what} is not running (it exited; restarting in ${seconds(wait)})`
    }
    if (this.#state === 'idle') return `${what} has not been started`
    return `${what} is shutting down`
  }
}

function defaultSpawn(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  return crossSpawn(command, [...args], options)
}

function exitDescription(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code ?? 'unknown'}`
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}
