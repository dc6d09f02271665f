/**
 * The only reader of `process.argv` and `process.env` for `burrow`: turns them into one frozen,
 * typed command. Every flag and variable is listed in docs/configuration.md and in `--help`.
 */
import { parseArgs } from 'node:util'
import type { LogLevel } from '@burrow/protocol'
import { isLogLevel } from '@burrow/protocol'
import { UsageError } from './cli-errors.js'

/** Options that apply to every subcommand (spec §4.3). */
export interface GlobalOptions {
  readonly broker: string
  readonly apiKey: string | null
  readonly logLevel: LogLevel
  readonly updateCheck: boolean
  readonly telemetry: boolean
}

/** One upstream as given on the command line. */
export type UpstreamSpec =
  | { readonly kind: 'http'; readonly name: string | null; readonly url: string }
  | { readonly kind: 'stdio'; readonly name: string | null; readonly command: string }

/** `burrow up`. */
export interface UpOptions {
  readonly upstreams: readonly UpstreamSpec[]
  readonly name: string | null
  readonly drainGraceSecs: number
  /** The environment stdio servers are started with (and `$VARS` in --stdio expand from). */
  readonly childEnv: Env
}

/** What to run. */
export type CliCommand =
  | { readonly command: 'help'; readonly topic: 'main' | 'up' }
  | { readonly command: 'version' }
  | { readonly command: 'up'; readonly global: GlobalOptions; readonly up: UpOptions }

/** Environment as read by the CLI. */
export type Env = Readonly<Record<string, string | undefined>>

const OPTIONS = {
  broker: { type: 'string' },
  'api-key': { type: 'string' },
  verbose: { type: 'boolean', short: 'v', multiple: true },
  'no-update-check': { type: 'boolean' },
  'no-telemetry': { type: 'boolean' },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  upstream: { type: 'string', multiple: true },
  stdio: { type: 'string', multiple: true },
  name: { type: 'string' },
} as const

/** Parse argv (without node and script) and env into a command, or throw UsageError. */
export function parseCli(argv: readonly string[], env: Env): CliCommand {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError(
      `${(err as Error).message.replace(/\. To specify.*$/s, '')}; see "burrow --help"`,
    )
  }
  const { values, positionals } = parsed
  const [sub, ...rest] = positionals
  if (values.version) return Object.freeze({ command: 'version' })
  if (values.help || sub === 'help')
    return Object.freeze({
      command: 'help',
      topic: sub === 'up' || rest[0] === 'up' ? 'up' : 'main',
    })
  if (sub === undefined)
    throw new UsageError(
      'missing command: try "burrow up --stdio \\"npx my-server\\"" or "burrow --help"',
    )
  if (sub !== 'up')
    throw new UsageError(`unknown command "${sub}"; commands: up (see "burrow --help")`)
  if (rest.length > 0)
    throw new UsageError(
      `unexpected argument "${rest[0]}": values with spaces need quotes, e.g. --stdio "npx my-server"`,
    )

  const global = globalOptions(values, env)
  const upstreams = [
    ...(values.upstream ?? []).map((v) => upstreamSpec('http', '--upstream', v)),
    ...(values.stdio ?? []).map((v) => upstreamSpec('stdio', '--stdio', v)),
  ]
  if (upstreams.length === 0) {
    throw new UsageError(
      'no upstream given: pass --upstream http://127.0.0.1:PORT/mcp or --stdio "COMMAND"',
    )
  }
  if (upstreams.length > 1) {
    throw new UsageError(
      'several upstreams (aggregator mode) are not supported by this version yet; pass one --upstream or --stdio',
    )
  }
  const up: UpOptions = {
    upstreams,
    name: values.name ?? null,
    drainGraceSecs: seconds(env.BURROW_DRAIN_GRACE_SECS, 'BURROW_DRAIN_GRACE_SECS', 10),
    childEnv: env,
  }
  return Object.freeze({ command: 'up', global: Object.freeze(global), up: Object.freeze(up) })
}

function globalOptions(
  values: {
    broker?: string
    'api-key'?: string
    verbose?: boolean[]
    'no-update-check'?: boolean
    'no-telemetry'?: boolean
  },
  env: Env,
): GlobalOptions {
  const broker = values.broker ?? env.BURROW_BROKER ?? 'ws://127.0.0.1:7100'
  let url: URL
  try {
    url = new URL(broker)
  } catch {
    throw new UsageError(`--broker "${broker}" is not a URL; use ws://HOST:PORT or wss://HOST`)
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new UsageError(`--broker "${broker}" must start with ws:// or wss://`)
  }
  const apiKey = values['api-key'] ?? env.BURROW_API_KEY ?? null
  if (apiKey !== null && !apiKey.startsWith('mtk_')) {
    throw new UsageError('the tunnel key must start with "mtk_"; check --api-key / BURROW_API_KEY')
  }
  return {
    broker,
    apiKey,
    logLevel: logLevel(values.verbose?.length ?? 0, env.BURROW_LOG),
    updateCheck: !(
      values['no-update-check'] || flag(env.BURROW_NO_UPDATE_CHECK, 'BURROW_NO_UPDATE_CHECK')
    ),
    telemetry: !(values['no-telemetry'] || flag(env.BURROW_NO_TELEMETRY, 'BURROW_NO_TELEMETRY')),
  }
}

/** `BURROW_LOG` wins over `-v`: -v and -vv debug, -vvv trace. */
function logLevel(verbosity: number, explicit: string | undefined): LogLevel {
  if (explicit !== undefined && explicit !== '') {
    const level = explicit.toLowerCase()
    if (!isLogLevel(level))
      throw new UsageError(
        `BURROW_LOG="${explicit}" is not a level; use error, warn, info, debug or trace`,
      )
    return level
  }
  return verbosity >= 3 ? 'trace' : verbosity >= 1 ? 'debug' : 'info'
}

function upstreamSpec(kind: 'http' | 'stdio', flagName: string, value: string): UpstreamSpec {
  if (value.trim() === '') throw new UsageError(`${flagName} needs a value`)
  if (kind === 'http') {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new UsageError(
        `${flagName} "${value}" is not a URL; use e.g. http://127.0.0.1:3000/mcp`,
      )
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`${flagName} "${value}" must be an http:// or https:// URL`)
    }
    return { kind, name: null, url: url.toString() }
  }
  return { kind, name: null, command: value }
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '') return false
  const v = value.toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(v)) return true
  if (['0', 'false', 'no', 'off'].includes(v)) return false
  throw new UsageError(`${name}="${value}" is not a yes/no value; use 1 or 0`)
}

function seconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0)
    throw new UsageError(`${name}="${value}" must be a number of seconds (0 or more)`)
  return n
}
