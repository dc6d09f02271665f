/**
 * The only reader of `process.argv` and `process.env` for `burrow`: turns them into one frozen,
 * typed command. Every flag and variable is listed in docs/configuration.md and in `--help`.
 */
import { parseArgs } from 'node:util'
import type { LogLevel } from '@burrow/protocol'
import { isLogLevel } from '@burrow/protocol'
import { brokerUrl } from './broker-url.js'
import { UsageError } from './cli-errors.js'
import { closestName } from './did-you-mean.js'
import { upstreamsFromFlags, type UpstreamFlag } from './upstreams/upstream-flags.js'
import { loadUpstreamsFile } from './upstreams/upstreams-file.js'
import type { UpstreamSpec } from './upstreams/upstream-spec.js'
import { tunnelKeyProblem } from './key-problem.js'
import { checkInspectToken } from './inspector/inspect-token-check.js'

/** Commands other tunnel tools sign in with; burrow has none, and says how to give the key. */
const KEY_COMMANDS = new Set(['login', 'signin', 'sign-in', 'auth', 'authtoken', 'token'])

export type { UpstreamSpec } from './upstreams/upstream-spec.js'

/** Options that apply to every subcommand (docs/configuration.md). */
export interface GlobalOptions {
  readonly broker: string
  readonly apiKey: string | null
  readonly logLevel: LogLevel
  readonly updateCheck: boolean
  readonly telemetry: boolean
}

/** The local inspector's settings; `enabled` is false unless a flag asked for it. */
export interface InspectOptions {
  readonly enabled: boolean
  /** `HOST:PORT`; the default falls back to a free port when taken. */
  readonly addr: string
  readonly addrExplicit: boolean
  readonly admin: boolean
  /** Fixed token from BURROW_INSPECT_TOKEN, else null for a fresh random one. */
  readonly token: string | null
}

/** `burrow up`. */
export interface UpOptions {
  /** From flags or the upstreams file; empty means auto-detect. */
  readonly upstreams: readonly UpstreamSpec[]
  /** The upstreams file the layout came from (the inspector's Config tab saves to it). */
  readonly upstreamsFile: string | null
  /** Files auto-detection reads instead of the well-known paths. */
  readonly configPaths: readonly string[]
  readonly name: string | null
  readonly drainGraceSecs: number
  readonly metricsAddr: string | null
  readonly inspect: InspectOptions
  /** The environment stdio servers are started with (and `$VARS` in --stdio expand from). */
  readonly childEnv: Env
  /** Test hook (BURROW_TEST_CRASH=1): crash on purpose after the banner, to test crash reports. */
  readonly testCrash: boolean
}

/** `burrow detect`. */
export interface DetectOptions {
  readonly configPaths: readonly string[]
  readonly json: boolean
}

/** What to run. */
export type CliCommand =
  | { readonly command: 'help'; readonly topic: 'main' | 'up' | 'detect' }
  | { readonly command: 'version' }
  | { readonly command: 'up'; readonly global: GlobalOptions; readonly up: UpOptions }
  | { readonly command: 'detect'; readonly global: GlobalOptions; readonly detect: DetectOptions }

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
  'upstreams-file': { type: 'string' },
  name: { type: 'string' },
  config: { type: 'string', multiple: true },
  'metrics-addr': { type: 'string' },
  inspect: { type: 'boolean' },
  'inspect-addr': { type: 'string' },
  'inspect-admin': { type: 'boolean' },
  json: { type: 'boolean' },
} as const

const UP_ONLY = [
  'upstream',
  'stdio',
  'upstreams-file',
  'name',
  'metrics-addr',
  'inspect',
  'inspect-addr',
  'inspect-admin',
] as const
const DETECT_ONLY = ['json'] as const
const COMMANDS = ['up', 'detect'] as const

/** Parse argv (without node and script) and env into a command, or throw UsageError. */
export function parseCli(argv: readonly string[], env: Env): CliCommand {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    })
  } catch (err) {
    throw argumentError(err as Error & { code?: string }, argv)
  }
  const { values, positionals, tokens } = parsed
  const [sub, ...rest] = positionals
  if (values.version) return Object.freeze({ command: 'version' })
  const topicOf = (word: string | undefined) => (word === 'up' || word === 'detect' ? word : 'main')
  if (values.help || sub === 'help')
    return Object.freeze({ command: 'help', topic: topicOf(sub === 'help' ? rest[0] : sub) })
  if (sub === undefined)
    throw new UsageError(
      'missing command: try "burrow up --stdio \\"npx my-server\\"" or "burrow --help"',
    )
  if (KEY_COMMANDS.has(sub.toLowerCase())) {
    // Other tunnel tools keep a sign-in on disk; burrow reads the tunnel's key each run.
    throw new UsageError(
      `there is no "burrow ${sub}": each tunnel has a key of its own (mtk_…, shown once when ` +
        'the tunnel is made in the dashboard); pass it to up with --api-key or BURROW_API_KEY, ' +
        'e.g. BURROW_API_KEY=mtk_… burrow up --stdio "npx my-server"',
    )
  }
  if (!(COMMANDS as readonly string[]).includes(sub)) {
    const near = closestName(sub, COMMANDS)
    const guess = near ? `did you mean "${near}"? ` : ''
    throw new UsageError(
      `unknown command "${sub}"; ${guess}Commands: up, detect (see "burrow --help")`,
    )
  }
  if (rest.length > 0)
    throw new UsageError(
      `unexpected argument "${rest[0]}": values with spaces need quotes, e.g. --stdio "npx my-server"`,
    )
  const wrong = sub === 'up' ? DETECT_ONLY : UP_ONLY
  for (const key of wrong)
    if (values[key] !== undefined)
      throw new UsageError(`--${key} does not apply to "burrow ${sub}"`)

  const global = Object.freeze(globalOptions(values, env))
  const configPaths = values.config ?? []
  if (sub === 'detect')
    return Object.freeze({
      command: 'detect',
      global,
      detect: Object.freeze({ configPaths, json: values.json ?? false }),
    })

  const flags: UpstreamFlag[] = tokens
    .filter((t) => t.kind === 'option' && (t.name === 'upstream' || t.name === 'stdio'))
    .map((t) => ({
      flag: `--${(t as { name: string }).name}` as UpstreamFlag['flag'],
      value: (t as { value?: string }).value ?? '',
    }))
  const file = values['upstreams-file'] ?? null
  if (file !== null && flags.length > 0) {
    throw new UsageError(
      `--upstreams-file cannot be combined with ${flags[0]!.flag}; put every upstream in the file, or use flags only`,
    )
  }
  const upstreams =
    file !== null ? loadUpstreamsFile(file) : flags.length > 0 ? upstreamsFromFlags(flags) : []
  const inspectAddr = values['inspect-addr'] ?? env.BURROW_INSPECT_ADDR ?? null
  const admin = values['inspect-admin'] || flag(env.BURROW_INSPECT_ADMIN, 'BURROW_INSPECT_ADMIN')
  const metricsAddr = values['metrics-addr'] ?? env.BURROW_METRICS_ADDR ?? null
  if (metricsAddr !== null) hostPort(metricsAddr, '--metrics-addr')
  if (inspectAddr !== null) hostPort(inspectAddr, '--inspect-addr')
  const token = env.BURROW_INSPECT_TOKEN ?? null
  if (token !== null) checkInspectToken(token)
  const up: UpOptions = {
    upstreams,
    upstreamsFile: file,
    configPaths,
    name: values.name ?? null,
    drainGraceSecs: seconds(env.BURROW_DRAIN_GRACE_SECS, 'BURROW_DRAIN_GRACE_SECS', 10),
    metricsAddr,
    inspect: Object.freeze({
      enabled: Boolean(values.inspect) || inspectAddr !== null || admin,
      addr: inspectAddr ?? '127.0.0.1:4040',
      addrExplicit: inspectAddr !== null,
      admin,
      token,
    }),
    childEnv: env,
    testCrash: env.BURROW_TEST_CRASH === '1',
  }
  return Object.freeze({ command: 'up', global, up: Object.freeze(up) })
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
  const broker = brokerUrl(values.broker ?? env.BURROW_BROKER ?? 'ws://127.0.0.1:7100')
  const apiKey = values['api-key'] ?? env.BURROW_API_KEY ?? null
  const keyProblem = apiKey === null ? null : tunnelKeyProblem(apiKey)
  if (keyProblem !== null) throw new UsageError(keyProblem)
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

/**
 * A parseArgs error as a usage error: an unknown option gets the nearest known one, and every
 * message points at the help of the command being used.
 */
function argumentError(err: Error & { code?: string }, argv: readonly string[]): UsageError {
  const help = `see "${helpCommand(argv)}"`
  const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(err.message)
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    let written = `${unknown[1]}${unknown[2]}`
    // "-stdio" is read as the short options -s -t -d…; the user meant a long option.
    const single = argv.find(
      (a) => unknown[1] === '-' && a.startsWith(written) && !a.startsWith('--'),
    )
    if (single && single.length > 2) written = single.split('=')[0]!
    const near = closestName(written.replace(/^-+/, ''), OPTION_NAMES)
    const guess = near ? `; did you mean --${near}?` : ''
    // A global option is listed in "burrow --help" only, not in the command's help.
    const where = near && GLOBAL_NAMES.includes(near) ? 'see "burrow --help"' : help
    return new UsageError(`unknown option ${written}${guess} (${where})`)
  }
  const option = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1]
  if (option && /argument missing|ambiguous/.test(err.message))
    return new UsageError(`${option} needs a value (${help})`)
  if (option && /does not take an argument/.test(err.message))
    return new UsageError(`${option} takes no value (${help})`)
  return new UsageError(`${err.message.replace(/\. To specify.*$/s, '')} (${help})`)
}

const OPTION_NAMES = Object.keys(OPTIONS)
const GLOBAL_NAMES: readonly string[] = OPTION_NAMES.filter(
  (n) =>
    !(UP_ONLY as readonly string[]).includes(n) && !(DETECT_ONLY as readonly string[]).includes(n),
)

/** `burrow up --help` while using `up`, and so on. */
function helpCommand(argv: readonly string[]): string {
  const { positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
  })
  // An unknown option may have taken no value, leaving its value as the first positional.
  const sub = positionals.find((word) => (COMMANDS as readonly string[]).includes(word))
  return sub ? `burrow ${sub} --help` : 'burrow --help'
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

function hostPort(value: string, name: string): void {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value)
  if (!m || Number(m[2]) > 65535)
    throw new UsageError(`${name} "${value}" must be HOST:PORT, e.g. 127.0.0.1:9464`)
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
