/**
 * The background check for a newer `burrow` (`--no-update-check`, docs/configuration.md). At most
 * once a day (remembered in `update-check.json` in the user's cache directory) it asks the service
 * it connects to for the latest client release (`GET /api/client/latest`) and, when that is newer,
 * prints one line. It never delays `up` and never fails it: every problem is logged at debug level
 * and dropped. Off with `--no-update-check` / BURROW_NO_UPDATE_CHECK (the caller then does not
 * start it).
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Logger } from '@burrow/protocol'
import { isNewerVersion, isSemver } from './compare-versions.js'
import { httpJsonRequest } from './http-json-request.js'
import { serviceHttpBase } from './service-http-base.js'

/** How long one check's answer holds: the service is asked at most once per this period. */
export const UPDATE_CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000
/** Name of the state file in `stateDir`. */
export const UPDATE_STATE_FILE = 'update-check.json'
/** Default deadline of the request. */
const TIMEOUT_MS = 3000

/** Options of `startUpdateCheck`. */
export interface UpdateCheckOptions {
  /** The broker URL (`ws(s)://…`, turned into the service's `http(s)://` address) or that address. */
  readonly serviceUrl: string
  /** The running client's version, e.g. `0.1.0`. */
  readonly currentVersion: string
  /** Where `update-check.json` lives (see `userCacheDir`); created when missing. */
  readonly stateDir: string
  /** Writes the notice: one line, newline included. */
  readonly print: (text: string) => void
  readonly logger: Logger
  /** The clock (tests pass their own). */
  readonly now?: () => Date
  /** Deadline of the request in milliseconds (default 3000). */
  readonly timeoutMs?: number
}

/** What one check did. */
export type UpdateCheckResult = 'recent' | 'newer' | 'current' | 'failed'

/** What `update-check.json` holds. */
interface UpdateState {
  /** ISO-8601 time of the last answer from the service. */
  readonly checked_at: string
  /** The version it announced, if it announced one. */
  readonly latest?: string
}

/**
 * Start the check in the background and return at once. The pending request never keeps the
 * process alive.
 */
export function startUpdateCheck(opts: UpdateCheckOptions): void {
  void runUpdateCheck(opts)
}

/**
 * The check itself; resolves (never rejects) with what it did: `recent` when the service was
 * asked less than a day ago, `newer` after printing the notice, `current` when no newer release
 * is announced, `failed` when the service could not be asked or gave no usable answer.
 */
export async function runUpdateCheck(opts: UpdateCheckOptions): Promise<UpdateCheckResult> {
  const log = opts.logger
  try {
    const now = (opts.now ?? (() => new Date()))()
    const statePath = join(opts.stateDir, UPDATE_STATE_FILE)
    const last = await readState(statePath)
    if (last !== null) {
      const age = now.getTime() - Date.parse(last.checked_at)
      if (age >= 0 && age < UPDATE_CHECK_INTERVAL_MS) {
        log.debug(`update check: last asked at ${last.checked_at}; not asking again today`)
        return 'recent'
      }
    }
    const url = `${serviceHttpBase(opts.serviceUrl)}/api/client/latest`
    const response = await httpJsonRequest(url, {
      method: 'GET',
      timeoutMs: opts.timeoutMs ?? TIMEOUT_MS,
      unref: true,
      userAgent: `burrow/${opts.currentVersion}`,
    })
    const latest = response.status === 200 ? announced(response.json) : null
    // The service answered: remember that, even without a usable version, to ask once a day.
    await writeState(statePath, {
      checked_at: now.toISOString(),
      ...(latest ? { latest: latest.version } : {}),
    }).catch((err: Error) => log.debug(`update check: cannot save ${statePath}: ${err.message}`))
    if (latest === null) {
      log.debug(`update check: ${url} answered ${response.status} without a usable version`)
      return 'failed'
    }
    if (!isNewerVersion(latest.version, opts.currentVersion)) {
      log.debug(`update check: ${latest.version} announced; ${opts.currentVersion} is current`)
      return 'current'
    }
    opts.print(notice(latest.version, opts.currentVersion, latest.downloadUrl))
    return 'newer'
  } catch (err) {
    log.debug(`update check failed: ${(err as Error).message}`)
    return 'failed'
  }
}

/** The one line printed when `latest` is newer than `current`. */
export function notice(latest: string, current: string, downloadUrl: string | null): string {
  const how = downloadUrl ? `Get it at ${downloadUrl}` : 'Update it the way you installed it'
  return `A newer burrow is available: ${latest} (you have ${current}). ${how}; hide this notice with --no-update-check.\n`
}

/** The version and download URL in the service's answer, checked (they end up on a terminal). */
function announced(json: unknown): { version: string; downloadUrl: string | null } | null {
  const body = json as { version?: unknown; download_url?: unknown } | null | undefined
  const version = body?.version
  if (typeof version !== 'string' || version.length > 64 || !isSemver(version)) return null
  return { version, downloadUrl: safeUrl(body?.download_url) }
}

function safeUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 512) return null
  try {
    const url = new URL(value)
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null
  } catch {
    return null
  }
}

/** Longer state files are not ours and are not read. */
const MAX_STATE_BYTES = 4096

/**
 * The saved state, or null. Only a small regular file is read: reading a FIFO would wait for a
 * writer forever (and keep `burrow` alive), a device or a huge file would fill memory.
 */
async function readState(path: string): Promise<UpdateState | null> {
  try {
    const info = await stat(path)
    if (!info.isFile() || info.size > MAX_STATE_BYTES) return null
    const state = JSON.parse(await readFile(path, 'utf8')) as Partial<UpdateState> | null
    return typeof state?.checked_at === 'string' && !Number.isNaN(Date.parse(state.checked_at))
      ? (state as UpdateState)
      : null
  } catch {
    return null
  }
}

/** Write the state whole (a temporary file renamed over the old one). */
async function writeState(path: string, state: UpdateState): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(state) + '\n')
  await rename(temp, path)
}
