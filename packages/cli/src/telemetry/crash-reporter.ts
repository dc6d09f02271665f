/**
 * Crash reports: when `burrow` dies of an error it did not expect, it sends one short report to
 * the service it was using (`POST /api/crash-reports`) and then dies as it would have. A report
 * holds the client, OS, architecture and Node.js versions, the kind, the command name, and the
 * error's message and stack scrubbed by `scrubText`; never MCP traffic, headers, keys, arguments
 * or the environment. With `enabled: false` (`--no-telemetry`, BURROW_NO_TELEMETRY=1; see
 * docs/configuration.md) no handler is installed and nothing is ever sent.
 */
import { homedir } from 'node:os'
import type { Logger } from '@burrow/protocol'
import { httpJsonRequest } from '../update/http-json-request.js'
import { serviceHttpBase } from '../update/service-http-base.js'
import { scrubText } from './scrub-text.js'

/** How the client crashed: an uncaught exception or rejection, or an internal error caught last. */
export type CrashKind = 'uncaught' | 'fatal'

/** Options of `installCrashReporter`. */
export interface CrashReporterOptions {
  /** False with --no-telemetry: install nothing, send nothing. */
  readonly enabled: boolean
  /** The broker URL (`ws(s)://…`, turned into the service's `http(s)://` address) or that address. */
  readonly serviceUrl: string
  /** The running client's version, e.g. `0.1.0`. */
  readonly clientVersion: string
  /** The subcommand (`up`, `detect`); never its arguments. */
  readonly command: string | null
  readonly logger: Logger
  /** Deadline for sending one report (default 2000 ms). */
  readonly timeoutMs?: number
  /** The home directory to scrub (default `os.homedir()`). */
  readonly home?: string
  /** Where to install the handlers (default `process`; tests pass an emitter of their own). */
  readonly target?: NodeJS.EventEmitter
}

/** The installed reporter. */
export interface CrashReporter {
  /** Send a report for `err` (the top-level catch calls this for internal errors). Never rejects. */
  report(kind: CrashKind, err: unknown): Promise<void>
  /** Remove the handlers (tests). */
  uninstall(): void
}

/** Field limits, within what burrowd accepts (message 4096, stack 32768, body 64 KiB). */
const MAX_MESSAGE = 4096
const MAX_STACK = 16_384
const MAX_BODY_BYTES = 60 * 1024
/** Reports one process sends at most (an error loop must not flood the service). */
const MAX_REPORTS = 3

/** The JSON body burrowd stores. */
export interface CrashReportBody {
  readonly client_version: string
  readonly os: string
  readonly arch: string
  readonly node: string
  readonly kind: CrashKind
  readonly message: string
  readonly stack: string
  readonly command?: string
}

/**
 * Install `uncaughtException` and `unhandledRejection` handlers that send a report (waiting at
 * most `timeoutMs`) and then let the error end the process as Node.js would have (its stack on
 * stderr, a non-zero status). Returns the reporter for the top-level catch.
 */
export function installCrashReporter(opts: CrashReporterOptions): CrashReporter {
  const target = opts.target ?? process
  const log = opts.logger
  let sent = 0
  const report = async (kind: CrashKind, err: unknown): Promise<void> => {
    if (!opts.enabled) return
    if (sent >= MAX_REPORTS) return
    sent++
    try {
      const url = `${serviceHttpBase(opts.serviceUrl)}/api/crash-reports`
      const body = crashReportBody(
        kind,
        err,
        opts.clientVersion,
        opts.command,
        opts.home ?? homedir(),
      )
      const res = await httpJsonRequest(url, {
        method: 'POST',
        body,
        timeoutMs: opts.timeoutMs ?? 2000,
        userAgent: `burrow/${opts.clientVersion}`,
      })
      const id = (res.json as { id?: unknown } | undefined)?.id
      if (res.status === 202)
        log.info(`crash report sent to ${url}${typeof id === 'string' ? ` (${id})` : ''}`)
      else log.debug(`crash report refused by ${url}: HTTP ${res.status}`)
    } catch (e) {
      log.debug(`crash report not sent: ${(e as Error).message}`)
    }
  }
  if (!opts.enabled) return { report, uninstall: () => {} }

  let crashing = false
  const onException = (err: unknown) => {
    if (crashing) return
    crashing = true
    void report('uncaught', err).finally(() => {
      uninstall()
      // Node's own fatal path now prints the stack and exits with status 1.
      setImmediate(() => {
        throw err
      })
    })
  }
  const onRejection = (reason: unknown) => {
    if (crashing) return
    crashing = true
    void report('uncaught', reason).finally(() => {
      uninstall()
      // An unhandled rejection again, now without our handler: Node ends the process with it.
      // The original reason, whatever it is, so Node reports exactly what was rejected.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      void Promise.reject(reason)
    })
  }
  const uninstall = () => {
    target.off('uncaughtException', onException)
    target.off('unhandledRejection', onRejection)
  }
  target.on('uncaughtException', onException)
  target.on('unhandledRejection', onRejection)
  return { report, uninstall }
}

/** The scrubbed, size-limited report for `err`. */
export function crashReportBody(
  kind: CrashKind,
  err: unknown,
  clientVersion: string,
  command: string | null,
  home: string | null,
): CrashReportBody {
  const message = scrubText(messageOf(err), home).slice(0, MAX_MESSAGE)
  let stack = scrubText(err instanceof Error ? (err.stack ?? '') : '', home).slice(0, MAX_STACK)
  const body = (): CrashReportBody => ({
    client_version: printable(clientVersion, 64) ?? 'unknown',
    os: process.platform,
    arch: process.arch,
    node: process.version,
    kind,
    message,
    stack,
    ...(command !== null && printable(command, 64) ? { command } : {}),
  })
  // Escaped characters can make the JSON far longer than the text; shorten the stack to fit.
  while (Buffer.byteLength(JSON.stringify(body())) > MAX_BODY_BYTES && stack.length > 0)
    stack = stack.slice(0, Math.floor(stack.length / 2))
  return body()
}

/** The message of what was thrown; only a string or an Error's message, never other values. */
function messageOf(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`
  if (typeof err === 'string') return err
  return `a non-Error value was thrown (${err === null ? 'null' : typeof err})`
}

function printable(value: string, max: number): string | null {
  return value.length > 0 && value.length <= max && /^[\x20-\x7e]+$/.test(value) ? value : null
}
