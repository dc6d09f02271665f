/**
 * burrowd's configuration: the only place that reads `process.env`. `loadConfig` turns the
 * `BURROW_*` variables into one frozen, typed `ServerConfig` that is passed to everything else,
 * and refuses bad values with a `ConfigError` naming the variable, the value and what is accepted.
 * Every key is listed in docs/configuration.md. An empty variable counts as unset.
 */

import { parseMailSettings, type MailSettings } from './mail/mail-settings.js'
import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { parseBillingSettings, type BillingSettings } from './config-billing.js'
import { ConfigError } from './config-error.js'
import { bad, httpUrlOf, read, type Env } from './config-env.js'
import { boundedInt, parseOnOff, parseSwitch, positiveInt, wholeNumber } from './config-values.js'
import { DEFAULT_TRUSTED_PROXIES, parseProxyEntry } from './http/client-addresses.js'
import { DATABASE_URL_FORMS, parseDatabaseUrl, redactDatabaseUrl } from './store/database-target.js'
import { redactUrl } from './redact-url.js'
import { DEFAULT_DATABASE_TIMEOUT_SECS } from './store/bounded-pg-pool.js'

export { ConfigError } from './config-error.js'
export type { BillingSettings } from './config-billing.js'
export type { Env } from './config-env.js'

/** Log levels, least verbose first. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const

/** How much burrowd logs (`BURROW_LOG`). */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Scheme of the public tunnel URLs (what agents see, usually after a TLS terminator). */
export type PublicScheme = 'http' | 'https'

/** Everything burrowd is configured with. Frozen; built only by `loadConfig`. */
export interface ServerConfig {
  /** Address the one HTTP/WebSocket listener binds (`BURROW_LISTEN`). IPv6 hosts have no brackets; port 0 picks a free port. */
  readonly listen: { readonly host: string; readonly port: number }
  /** DNS zone under which tunnels get `<sub>--<slug>.<zone>` (`BURROW_ZONE`), lower-case. */
  readonly zone: string
  /**
   * Host of the dashboard, the API and the broker (`BURROW_SERVICE_HOST`), lower-case; the zone
   * itself unless set. A host of its own keeps tunnels off the dashboard's site in browsers.
   */
  readonly serviceHost: string
  /** Scheme of public URLs (`BURROW_PUBLIC_SCHEME`). */
  readonly publicScheme: PublicScheme
  /**
   * Port shown in public URLs (`BURROW_PUBLIC_PORT`), or null for the scheme's default. 0 means
   * "the port the listener actually bound" (listen port 0 on a localhost zone); see `publicUrlFor`.
   */
  readonly publicPort: number | null
  /** Absolute directory for burrowd's files (`BURROW_DATA_DIR`), e.g. the SQLite database. */
  readonly dataDir: string
  /** `BURROW_DATABASE_URL` as given, or null for SQLite at `<dataDir>/burrow.db`. */
  readonly databaseUrl: string | null
  /**
   * How long a PostgreSQL connection or query may take before the request needing it fails with
   * 503 (`BURROW_DATABASE_TIMEOUT_SECS`; store/bounded-pg-pool.ts).
   */
  readonly databaseTimeoutSecs: number
  /** Largest request body accepted on the public edge, in bytes (`BURROW_MAX_BODY_BYTES`). */
  readonly maxBodyBytes: number
  /** How long a dropped tunnel keeps its hostname and sessions for a resume (`BURROW_RESUME_GRACE_SECS`). */
  readonly resumeGraceSecs: number
  /** How long a public request waits for a reconnecting tunnel (`BURROW_QUEUE_WAIT_MS`). */
  readonly queueWaitMs: number
  /** Interval of tunnel WebSocket pings (`BURROW_HEARTBEAT_SECS`). */
  readonly heartbeatSecs: number
  /**
   * Seconds of quiet after which burrowd gives grown heap memory back to the system
   * (`BURROW_MEMORY_RELEASE_SECS`; 0 for never). See runtime/quiet-memory-release.ts.
   */
  readonly memoryReleaseSecs: number
  /** Log level (`BURROW_LOG`). */
  readonly logLevel: LogLevel
  /**
   * Newest `burrow` release announced at `GET /api/client/latest` (`BURROW_CLIENT_LATEST_VERSION`),
   * a semantic version such as `0.2.0`; null means burrowd's own version.
   */
  readonly clientLatestVersion: string | null
  /** Where users get that release (`BURROW_CLIENT_DOWNLOAD_URL`), an http(s) URL, or null. */
  readonly clientDownloadUrl: string | null
  /**
   * Let outbound webhooks reach loopback, private and link-local addresses
   * (`BURROW_WEBHOOKS_ALLOW_PRIVATE`); off, so users' endpoints cannot reach burrowd's network.
   */
  readonly webhooksAllowPrivate: boolean
  /** Payment provider (`BURROW_BILLING_PROVIDER`, `BURROW_PADDLE_*`). */
  readonly billing: BillingSettings
  /**
   * Redis shared by several nodes (`BURROW_REDIS_URL`, `redis://` or `rediss://`) for the live
   * usage counters and session places, or null to keep them in this process.
   */
  readonly redisUrl: string | null
  /** Whether monthly quotas and the session cap are enforced (`BURROW_QUOTAS`, on or off). */
  readonly quotas: boolean
  /** An idle session (nothing open) stops counting against the cap after this long (`BURROW_SESSION_IDLE_SECS`). */
  readonly sessionIdleSecs: number
  /** Interval of the usage snapshot the billing meters read (`BURROW_METER_SNAPSHOT_SECS`). */
  readonly meterSnapshotSecs: number
  /**
   * Proxies whose `X-Forwarded-For` burrowd believes (`BURROW_TRUSTED_PROXIES`): IP addresses and
   * CIDR blocks; loopback by default (a TLS terminator on the same host), none with `none`.
   */
  readonly trustedProxies: readonly string[]
  /**
   * Bearer token `GET /metrics` asks for (`BURROW_METRICS_TOKEN`); null: only scrapers on this
   * machine that reach burrowd directly (not through the proxy) may read it.
   */
  readonly metricsToken: string | null
  /**
   * This node's URL as the other nodes reach it (`BURROW_NODE_URL`, `http(s)://host:port`), for
   * forwarding requests between nodes sharing Redis; null: `http://<listen address>`.
   */
  readonly nodeUrl: string | null
  /**
   * DNS servers that check custom domains (`BURROW_DNS_SERVERS`): `IP` or `IP:PORT` entries
   * (`[IPv6]:PORT`); empty for the system's resolvers.
   */
  readonly dnsServers: readonly string[]
  /** Where password-reset and verification mail goes (`BURROW_SMTP_URL`, `BURROW_MAIL_FROM`). */
  readonly mail: MailSettings
}

/**
 * Read burrowd's configuration from `env`. Relative paths resolve against `cwd`.
 * Throws `ConfigError` on the first bad value.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): ServerConfig {
  const listen = parseListen(read(env, 'BURROW_LISTEN') ?? '127.0.0.1:7100')
  const zone = parseZone(read(env, 'BURROW_ZONE') ?? 'localhost')
  const local = zone === 'localhost' || zone.endsWith('.localhost')
  const databaseUrl = read(env, 'BURROW_DATABASE_URL') ?? null
  if (databaseUrl !== null && parseDatabaseUrl(databaseUrl, cwd) === null) {
    throw bad('BURROW_DATABASE_URL', redactDatabaseUrl(databaseUrl), DATABASE_URL_FORMS)
  }
  const config: ServerConfig = {
    listen: Object.freeze(listen),
    zone,
    serviceHost: parseServiceHost(read(env, 'BURROW_SERVICE_HOST'), zone),
    publicScheme: parseScheme(read(env, 'BURROW_PUBLIC_SCHEME') ?? (local ? 'http' : 'https')),
    publicPort: parsePublicPort(read(env, 'BURROW_PUBLIC_PORT'), local ? listen.port : null),
    dataDir: resolve(cwd, read(env, 'BURROW_DATA_DIR') ?? '.burrow'),
    databaseUrl,
    databaseTimeoutSecs: boundedInt(
      env,
      'BURROW_DATABASE_TIMEOUT_SECS',
      DEFAULT_DATABASE_TIMEOUT_SECS,
      3600,
    ),
    maxBodyBytes: positiveInt(env, 'BURROW_MAX_BODY_BYTES', 4 * 1024 * 1024),
    resumeGraceSecs: positiveInt(env, 'BURROW_RESUME_GRACE_SECS', 30),
    queueWaitMs: positiveInt(env, 'BURROW_QUEUE_WAIT_MS', 5000),
    heartbeatSecs: positiveInt(env, 'BURROW_HEARTBEAT_SECS', 15),
    memoryReleaseSecs: wholeNumber(env, 'BURROW_MEMORY_RELEASE_SECS', 60),
    logLevel: parseLogLevel(read(env, 'BURROW_LOG') ?? 'info'),
    clientLatestVersion: parseVersion(read(env, 'BURROW_CLIENT_LATEST_VERSION')),
    clientDownloadUrl: parseHttpUrl(read(env, 'BURROW_CLIENT_DOWNLOAD_URL')),
    webhooksAllowPrivate: parseSwitch(env, 'BURROW_WEBHOOKS_ALLOW_PRIVATE'),
    billing: parseBillingSettings(env),
    redisUrl: parseRedisUrl(read(env, 'BURROW_REDIS_URL')),
    quotas: parseOnOff(env, 'BURROW_QUOTAS', true),
    sessionIdleSecs: positiveInt(env, 'BURROW_SESSION_IDLE_SECS', 300),
    meterSnapshotSecs: positiveInt(env, 'BURROW_METER_SNAPSHOT_SECS', 60),
    trustedProxies: parseTrustedProxies(read(env, 'BURROW_TRUSTED_PROXIES')),
    metricsToken: parseMetricsToken(read(env, 'BURROW_METRICS_TOKEN')),
    nodeUrl: parseNodeUrl(read(env, 'BURROW_NODE_URL')),
    dnsServers: parseDnsServers(read(env, 'BURROW_DNS_SERVERS')),
    mail: parseMailSettings(read(env, 'BURROW_SMTP_URL'), read(env, 'BURROW_MAIL_FROM'), zone),
  }
  return Object.freeze(config)
}

const LISTEN_FORMS = 'HOST:PORT, e.g. 127.0.0.1:7100, 0.0.0.0:7100 or [::1]:7100 (port 0-65535)'

function parseListen(value: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(value)
  let host: string | undefined
  let port: string | undefined
  if (bracketed) {
    ;[, host, port] = bracketed
    if (host === undefined || isIP(host) !== 6) throw bad('BURROW_LISTEN', value, LISTEN_FORMS)
  } else {
    const at = value.lastIndexOf(':')
    host = value.slice(0, at)
    port = value.slice(at + 1)
    // An unbracketed IPv6 address (`::1:7100`) is ambiguous.
    if (at <= 0 || host.includes(':') || !(isIP(host) === 4 || isHostname(host))) {
      throw bad('BURROW_LISTEN', value, LISTEN_FORMS)
    }
  }
  const number = port !== undefined && /^\d{1,5}$/.test(port) ? Number(port) : NaN
  if (!(number >= 0 && number <= 65535)) throw bad('BURROW_LISTEN', value, LISTEN_FORMS)
  return { host, port: number }
}

function parseZone(value: string): string {
  const zone = value.toLowerCase()
  if (!isHostname(zone) || isIP(zone) !== 0) {
    throw bad(
      'BURROW_ZONE',
      value,
      'a DNS name such as localhost or tunnels.example.com (no scheme, port or trailing dot)',
    )
  }
  return zone
}

function parseServiceHost(value: string | undefined, zone: string): string {
  if (value === undefined) return zone
  const host = value.toLowerCase()
  const under = host.endsWith(`.${zone}`) ? host.slice(0, -zone.length - 1) : null
  if (!isHostname(host) || isIP(host) !== 0 || (under !== null && under.includes('--'))) {
    throw bad(
      'BURROW_SERVICE_HOST',
      value,
      `a DNS name such as burrow.example.com (no scheme or port), not a tunnel's host under ${zone}`,
    )
  }
  return host
}

function isHostname(value: string): boolean {
  if (value.length > 253) return false
  return value.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(label))
}

function parseScheme(value: string): PublicScheme {
  const scheme = value.toLowerCase()
  if (scheme !== 'http' && scheme !== 'https') {
    throw bad('BURROW_PUBLIC_SCHEME', value, 'http or https')
  }
  return scheme
}

function parsePublicPort(value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN
  if (!(port >= 1 && port <= 65535)) {
    throw bad('BURROW_PUBLIC_PORT', value, 'a port number from 1 to 65535')
  }
  return port
}

function parseLogLevel(value: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === value.toLowerCase())
  if (level === undefined) throw bad('BURROW_LOG', value, `one of ${LOG_LEVELS.join(', ')}`)
  return level
}

/** MAJOR.MINOR.PATCH with optional -prerelease and +build, as semver.org writes it. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/

function parseVersion(value: string | undefined): string | null {
  if (value === undefined) return null
  if (value.length > 64 || !SEMVER.test(value)) {
    throw bad(
      'BURROW_CLIENT_LATEST_VERSION',
      value,
      'a semantic version such as 0.2.0 or 1.0.0-rc.1 (no leading "v")',
    )
  }
  return value
}

function parseHttpUrl(value: string | undefined): string | null {
  if (value === undefined) return null
  const url = httpUrlOf(value)
  if (url === null || value.length > 2048) {
    throw bad(
      'BURROW_CLIENT_DOWNLOAD_URL',
      value,
      'an http:// or https:// URL such as https://example.com/burrow/releases',
    )
  }
  return url.href
}

function parseRedisUrl(value: string | undefined): string | null {
  if (value === undefined) return null
  let url: URL | null
  try {
    url = new URL(value)
  } catch {
    url = null
  }
  if (url === null || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.host) {
    throw bad('BURROW_REDIS_URL', redactUrl(value), 'redis://HOST:PORT[/DB] or rediss://…')
  }
  return value
}

function parseTrustedProxies(value: string | undefined): readonly string[] {
  if (value === undefined) return DEFAULT_TRUSTED_PROXIES
  if (value.toLowerCase() === 'none') return Object.freeze([])
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  for (const entry of entries) {
    if (parseProxyEntry(entry) === null) {
      throw bad(
        'BURROW_TRUSTED_PROXIES',
        value,
        `IP addresses and CIDR blocks separated by commas, e.g. 127.0.0.1,10.0.0.0/8 (or none); "${entry}" is neither`,
      )
    }
  }
  return Object.freeze(entries)
}

function parseNodeUrl(value: string | undefined): string | null {
  if (value === undefined) return null
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw bad('BURROW_NODE_URL', value, 'http(s)://HOST:PORT, how the other nodes reach this one')
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search)
    throw bad('BURROW_NODE_URL', value, 'http(s)://HOST:PORT, how the other nodes reach this one')
  return url.origin
}

function parseMetricsToken(value: string | undefined): string | null {
  if (value === undefined) return null
  if (value.length < 16 || /\s/.test(value)) {
    // The value is not echoed: it is a secret.
    throw new ConfigError(
      'BURROW_METRICS_TOKEN',
      'BURROW_METRICS_TOKEN must be at least 16 characters without spaces (a random secret)',
    )
  }
  return value
}

function parseDnsServers(value: string | undefined): readonly string[] {
  if (value === undefined) return Object.freeze([])
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  for (const entry of entries) {
    if (!isDnsServer(entry)) {
      throw bad(
        'BURROW_DNS_SERVERS',
        value,
        `DNS server addresses separated by commas: IP or IP:PORT, [IPv6]:PORT for a port (e.g. 1.1.1.1,[2606:4700:4700::1111]:53); "${entry}" is not one`,
      )
    }
  }
  return Object.freeze(entries)
}

function isDnsServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true
  const m = /^(?:\[([^\]]+)\]|([\d.]+)):(\d{1,5})$/.exec(entry)
  if (!m) return false
  const host = m[1] ?? m[2] ?? ''
  const port = Number(m[3])
  return isIP(host) !== 0 && (m[1] === undefined || isIP(host) === 6) && port >= 1 && port <= 65535
}
