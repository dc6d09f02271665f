/**
 * The `burrowd` command line (a stable interface, listed in docs/configuration.md): which command
 * to run and with what flags. Parsed strictly with node:util `parseArgs`; anything unknown, missing
 * or malformed becomes a `UsageError` that says what to type instead.
 */

import { AccessInputError, parseAccessMode, parseAllowlist } from '../access/tunnel-access.js'
import { DEFAULT_ACCESS_MODE, type AccessMode } from '../store/tunnel-access-row.js'
import { parseArgs } from 'node:util'
import type { ParseArgsConfig } from 'node:util'
import { isPlanId, PLAN_IDS } from '../plans.js'
import type { PlanId } from '../plans.js'
import { UsageError } from './usage-error.js'

/** `burrowd account create`. */
export interface AccountCreateCommand {
  readonly command: 'account create'
  readonly email: string
  readonly slug: string
  readonly plan: PlanId
  /** Read the account's dashboard password from standard input (`--password-stdin`). */
  readonly passwordStdin: boolean
  readonly json: boolean
}

/** `burrowd tunnel create`. */
export interface TunnelCreateCommand {
  readonly command: 'tunnel create'
  /** Slug of the owning account. */
  readonly account: string
  readonly name: string | null
  readonly subdomain: string | null
  /** `--access`: who may call it (`oauth` when absent). */
  readonly access: AccessMode
  /** `--allow-ip`, repeatable: CIDRs callers must come from; empty for any address. */
  readonly allowIps: readonly string[]
  readonly json: boolean
}

/** `burrowd token create`. */
export interface TokenCreateCommand {
  readonly command: 'token create'
  /** Slug of the account the API token acts for. */
  readonly account: string
  readonly name: string | null
  readonly json: boolean
}

/** `burrowd crash-reports list`. */
export interface CrashReportsListCommand {
  readonly command: 'crash-reports list'
  /** How many reports, newest first (1-1000). */
  readonly limit: number
  readonly json: boolean
}

/** `burrowd usage set`. */
export interface UsageSetCommand {
  readonly command: 'usage set'
  /** The tunnel's id (`tun_…`). */
  readonly tunnel: string
  /** New value of this month's tool-call counter, or null to leave it. */
  readonly toolCalls: number | null
  /** New value of this month's bandwidth counter in bytes, or null to leave it. */
  readonly bandwidthBytes: number | null
  readonly json: boolean
}

/** A parsed `burrowd` command line. */
export type OperatorCommand =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'serve' }
  | { readonly command: 'migrate' }
  | AccountCreateCommand
  | TunnelCreateCommand
  | TokenCreateCommand
  | CrashReportsListCommand
  | UsageSetCommand

const ACCOUNT_CREATE_USAGE =
  'burrowd account create --email E --slug S [--plan free|pro|scale] [--password-stdin] [--json]'
const TUNNEL_CREATE_USAGE =
  'burrowd tunnel create --account SLUG [--name N] [--subdomain SUB] [--access oauth|token|public] [--allow-ip CIDR]... [--json]'
const TOKEN_CREATE_USAGE = 'burrowd token create --account SLUG [--name N] [--json]'
const CRASH_REPORTS_LIST_USAGE = 'burrowd crash-reports list [--limit N] [--json]'
const USAGE_SET_USAGE =
  'burrowd usage set --tunnel ID [--tool-calls N] [--bandwidth-bytes N] [--json]'
const HELP_HINT = 'run "burrowd --help" for usage'
/** Reports `crash-reports list` shows without --limit, and the most it shows. */
const DEFAULT_LIST_LIMIT = 20
const MAX_LIST_LIMIT = 1000

/** Parse `argv` (without node and the script path). Throws `UsageError`. */
export function parseOperatorArgs(argv: readonly string[]): OperatorCommand {
  const [word, ...rest] = argv
  switch (word) {
    case undefined:
      return { command: 'serve' }
    case '--help':
    case '-h':
    case 'help':
      return { command: 'help' }
    case '--version':
      return { command: 'version' }
    case 'serve':
    case 'migrate':
      return flags(`burrowd ${word}`, rest, {}).help ? { command: 'help' } : { command: word }
    case 'account':
    case 'tunnel':
    case 'token': {
      const [sub, ...args] = rest
      if (sub === '--help' || sub === '-h') return { command: 'help' }
      if (sub !== 'create') {
        throw new UsageError(
          sub === undefined
            ? `"burrowd ${word}" needs a subcommand: create; ${HELP_HINT}`
            : `unknown command "burrowd ${word} ${sub}"; the only one is "burrowd ${word} create"`,
        )
      }
      return word === 'account'
        ? accountCreate(args)
        : word === 'tunnel'
          ? tunnelCreate(args)
          : tokenCreate(args)
    }
    case 'crash-reports': {
      const [sub, ...args] = rest
      if (sub === '--help' || sub === '-h') return { command: 'help' }
      if (sub !== 'list') {
        throw new UsageError(
          sub === undefined
            ? `"burrowd crash-reports" needs a subcommand: list; ${HELP_HINT}`
            : `unknown command "burrowd crash-reports ${sub}"; the only one is "burrowd crash-reports list"`,
        )
      }
      return crashReportsList(args)
    }
    case 'usage': {
      const [sub, ...args] = rest
      if (sub === '--help' || sub === '-h') return { command: 'help' }
      if (sub !== 'set') {
        throw new UsageError(
          sub === undefined
            ? `"burrowd usage" needs a subcommand: set; ${HELP_HINT}`
            : `unknown command "burrowd usage ${sub}"; the only one is "burrowd usage set"`,
        )
      }
      return usageSet(args)
    }
    default:
      throw new UsageError(
        word.startsWith('-')
          ? `unknown option "${word}"; ${HELP_HINT}`
          : `unknown command "${word}"; the commands are serve, migrate, account create, tunnel create, token create, crash-reports list and usage set`,
      )
  }
}

function accountCreate(args: readonly string[]): OperatorCommand {
  const values = flags('burrowd account create', args, {
    email: { type: 'string' },
    slug: { type: 'string' },
    plan: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    json: { type: 'boolean' },
  })
  if (values.help) return { command: 'help' }
  const plan = optional(values.plan, 'plan', ACCOUNT_CREATE_USAGE) ?? 'free'
  if (!isPlanId(plan)) {
    throw new UsageError(`--plan "${plan}" is not a plan; use one of ${PLAN_IDS.join(', ')}`)
  }
  return {
    command: 'account create',
    email: required(values.email, 'email', ACCOUNT_CREATE_USAGE),
    slug: required(values.slug, 'slug', ACCOUNT_CREATE_USAGE),
    plan,
    passwordStdin: values['password-stdin'] === true,
    json: values.json === true,
  }
}

function tunnelCreate(args: readonly string[]): OperatorCommand {
  const values = flags('burrowd tunnel create', args, {
    account: { type: 'string' },
    name: { type: 'string' },
    subdomain: { type: 'string' },
    access: { type: 'string' },
    'allow-ip': { type: 'string', multiple: true },
    json: { type: 'boolean' },
  })
  if (values.help) return { command: 'help' }
  const access = optional(values.access, 'access', TUNNEL_CREATE_USAGE)
  let mode: AccessMode = DEFAULT_ACCESS_MODE
  let allowIps: string[]
  try {
    if (access !== null) mode = parseAccessMode(access)
    allowIps = parseAllowlist(values['allow-ip'] ?? [])
  } catch (error) {
    if (error instanceof AccessInputError) {
      throw new UsageError(
        error.field === 'access'
          ? `--access must be oauth, token or public, not "${access}"`
          : `--allow-ip: ${error.message}`,
      )
    }
    throw error
  }
  return {
    command: 'tunnel create',
    account: required(values.account, 'account', TUNNEL_CREATE_USAGE),
    name: optional(values.name, 'name', TUNNEL_CREATE_USAGE),
    subdomain: optional(values.subdomain, 'subdomain', TUNNEL_CREATE_USAGE),
    access: mode,
    allowIps,
    json: values.json === true,
  }
}

function tokenCreate(args: readonly string[]): OperatorCommand {
  const values = flags('burrowd token create', args, {
    account: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return { command: 'help' }
  return {
    command: 'token create',
    account: required(values.account, 'account', TOKEN_CREATE_USAGE),
    name: optional(values.name, 'name', TOKEN_CREATE_USAGE),
    json: values.json === true,
  }
}

function crashReportsList(args: readonly string[]): OperatorCommand {
  const values = flags('burrowd crash-reports list', args, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return { command: 'help' }
  const text = optional(values.limit, 'limit', CRASH_REPORTS_LIST_USAGE)
  const limit = text === null ? DEFAULT_LIST_LIMIT : /^\d{1,7}$/.test(text) ? Number(text) : NaN
  if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) {
    throw new UsageError(
      `--limit "${text}" must be a whole number from 1 to ${MAX_LIST_LIMIT}; usage: ${CRASH_REPORTS_LIST_USAGE}`,
    )
  }
  return { command: 'crash-reports list', limit, json: values.json === true }
}

function usageSet(args: readonly string[]): OperatorCommand {
  const values = flags('burrowd usage set', args, {
    tunnel: { type: 'string' },
    'tool-calls': { type: 'string' },
    'bandwidth-bytes': { type: 'string' },
    json: { type: 'boolean' },
  })
  if (values.help) return { command: 'help' }
  const tunnel = required(values.tunnel, 'tunnel', USAGE_SET_USAGE)
  const toolCalls = count(values['tool-calls'], 'tool-calls')
  const bandwidthBytes = count(values['bandwidth-bytes'], 'bandwidth-bytes')
  if (toolCalls === null && bandwidthBytes === null) {
    throw new UsageError(`give --tool-calls, --bandwidth-bytes or both; usage: ${USAGE_SET_USAGE}`)
  }
  return { command: 'usage set', tunnel, toolCalls, bandwidthBytes, json: values.json === true }
}

/** A counter value: a whole number from 0, or null when the flag is absent. */
function count(value: string | boolean | undefined, flag: string): number | null {
  const text = optional(value, flag, USAGE_SET_USAGE)
  if (text === null) return null
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(n)) {
    throw new UsageError(
      `--${flag} "${text}" must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}; usage: ${USAGE_SET_USAGE}`,
    )
  }
  return n
}

type Options = NonNullable<ParseArgsConfig['options']>
type Values = Record<string, string | boolean | undefined>

/** Strictly parse `args` against `options` (plus -h/--help) for the command named `context`. */
function flags(context: string, args: readonly string[], options: Options): Values {
  try {
    return parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    throw toUsageError(error, context)
  }
}

/** Node's parseArgs messages, reworded to name the command and the fix. */
function toUsageError(error: unknown, context: string): unknown {
  const code = (error as { code?: unknown } | null)?.code
  if (!(error instanceof Error) || typeof code !== 'string') return error
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? ''
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option "${quoted}" for "${context}"; ${HELP_HINT}`)
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument "${quoted}" for "${context}"; ${HELP_HINT}`)
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = quoted.split(' ')[0] ?? quoted
      return new UsageError(
        error.message.includes('does not take')
          ? `option ${option} does not take a value (in "${context}")`
          : `option ${option} needs a value (in "${context}")`,
      )
    }
    default:
      return error
  }
}

function required(value: string | boolean | undefined, flag: string, usage: string): string {
  const text = optional(value, flag, usage)
  if (text === null) throw new UsageError(`missing --${flag}; usage: ${usage}`)
  return text
}

function optional(value: string | boolean | undefined, flag: string, usage: string): string | null {
  if (value === undefined) return null
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${flag} needs a non-empty value; usage: ${usage}`)
  }
  return value.trim()
}
