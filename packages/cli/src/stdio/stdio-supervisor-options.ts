/** What `StdioSupervisor` is given (options, a spawn function) and what it reports (events). */
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import type { JsonRpcMessage } from '@burrow/protocol'
import type { Logger } from '../log/logger.js'
import type { RestartTiming } from './restart-policy.js'

/** How the supervisor starts a process; cross-spawn by default (it resolves Windows shims). */
export type SpawnFunction = (
  command: string,
  args: readonly string[],
  options: SpawnOptions,
) => ChildProcess

/** Options of `StdioSupervisor`. */
export interface StdioSupervisorOptions {
  /** Program to run (resolved through PATH, and PATHEXT on Windows). */
  readonly command: string
  readonly args?: readonly string[]
  /** Variables added to (or overriding) burrow's own environment. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** Prefix of re-logged stderr lines and log messages, e.g. the upstream name. Default `stdio`. */
  readonly label?: string
  /** The command as the user wrote it, for messages. Default: command and args joined. */
  readonly displayCommand?: string
  readonly logger?: Logger
  /** Restart timings; missing fields take `DEFAULT_RESTART_TIMING`. */
  readonly timing?: Partial<RestartTiming>
  /** Wait after ending stdin, and again after SIGTERM, before escalating. Default 2000 ms. */
  readonly closeGraceMs?: number
  /** Longest stdout line (one JSON-RPC message) accepted. Default 10 MB, as the SDK. */
  readonly maxLineBytes?: number
  /** Bytes that may wait for a child not reading its stdin before `send` refuses. Default 16 MiB. */
  readonly maxQueuedBytes?: number
  readonly spawn?: SpawnFunction
  /**
   * How long the exit of a first child with status 127 waits for its stderr to close, to read
   * which program the shell could not find (a grandchild may hold it open). Default 250 ms.
   */
  readonly stderrAfterExitMs?: number
  /**
   * How long a child that closed its stdout (it can answer nothing more) may run on before it is
   * stopped and restarted. Default 1 s.
   */
  readonly exitAfterStdoutEndMs?: number
  /** The clock that times each child's run (for the healthy-run reset). Default `Date.now`. */
  readonly now?: () => number
}

/** How a child ended. */
export interface StdioExit {
  /** Which child this was: 1 for the first, +1 per restart. */
  readonly generation: number
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** Set when the process could not be started at all. */
  readonly error?: Error
  readonly runtimeMs: number
  /** Delay until the next start, or null when the supervisor is closing. */
  readonly restartInMs: number | null
}

/** Events of `StdioSupervisor`. */
export interface StdioSupervisorEvents {
  /** A valid JSON-RPC message from the child's stdout (`child-output.ts` skips the rest). */
  message: [message: JsonRpcMessage, generation: number]
  /** A child process started (the first one too). */
  spawn: [generation: number, pid: number | undefined]
  /** A replacement child started: everything tied to older generations is void. */
  restart: [generation: number]
  /** A child ended or failed to start. */
  exit: [exit: StdioExit]
}

/** Default of `StdioSupervisorOptions.maxQueuedBytes`. */
export const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024

/** Default of `StdioSupervisorOptions.maxLineBytes`. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024

/** How long the exit of a first child with status 127 waits for its stderr to be read (ms). */
export const STDERR_AFTER_EXIT_MS = 250

/** How long a child that closed its stdout may run on before it is stopped (ms). */
export const EXIT_AFTER_STDOUT_END_MS = 1_000
