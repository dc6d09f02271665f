/**
 * `burrowd usage set`: set this month's live usage counters of a tunnel, for support and tests,
 * effective on the running service's next request. Where the counters live decides how:
 * - Redis (`BURROW_REDIS_URL`): written there directly; every node reads them.
 * - One node, counters in its memory: through the running burrowd's admin endpoint, found and
 *   authenticated through the database (`settings.admin_url`, `settings.admin_secret`).
 * - No burrowd running (nothing answers at that address): the durable row the next start loads.
 */
import { request } from 'node:http'
import type { ServerConfig } from '../config.js'
import { MemoryUsageCounters } from '../quota/memory-usage-counters.js'
import { periodOf } from '../quota/period.js'
import { snapshotSeed } from '../quota/meter-snapshots.js'
import { RedisUsageCounters } from '../quota/redis-usage-counters.js'
import {
  ADMIN_SECRET_SETTING,
  ADMIN_URL_SETTING,
  LIVE_COUNTERS_SETTING,
  REDIS_KEY_PREFIX,
  USAGE_ADMIN_PATH,
} from '../quota/usage-admin-settings.js'
import type { UsageCounters } from '../quota/usage-counters.js'
import { openStore } from '../store/open-store.js'
import type { Store } from '../store/store.js'
import { StoreError } from '../store/store-error.js'
import type { UsageSetCommand } from './parse-operator-args.js'
import { UsageError } from './usage-error.js'
import { openRedis } from '../store/open-redis.js'

/** Where the values were set. */
type Applied = 'service' | 'redis' | 'database'

/** The counters after the change. */
interface UsageValues {
  readonly period: string
  readonly toolCalls: number
  readonly bandwidthBytes: number
}

/** How long the running service gets to answer. */
const ADMIN_TIMEOUT_MS = 10_000

/**
 * Set the counters `command` names and return what to print: one JSON object
 * `{tunnel_id, period, tool_calls, bandwidth_bytes, applied}` with `--json`, else a summary.
 * Throws `StoreError` for an unknown tunnel, `UsageError` when the service cannot take it.
 */
export async function usageSet(command: UsageSetCommand, config: ServerConfig): Promise<string> {
  const store = await openStore(config)
  try {
    const tunnel = await store.db
      .selectFrom('tunnels')
      .select('id')
      .where('id', '=', command.tunnel)
      .executeTakeFirst()
    if (tunnel === undefined) {
      throw new StoreError(
        'not_found',
        `no tunnel with id "${command.tunnel}"; tunnel ids look like tun_0123abcd (see "burrowd tunnel create --json")`,
      )
    }
    const { applied, values, where } = await apply(command, config, store)
    if (command.json) {
      return (
        JSON.stringify({
          tunnel_id: command.tunnel,
          period: values.period,
          tool_calls: values.toolCalls,
          bandwidth_bytes: values.bandwidthBytes,
          applied,
        }) + '\n'
      )
    }
    return [
      `Set the ${values.period} usage of tunnel ${command.tunnel} ${where}:`,
      `  tool calls       ${values.toolCalls.toLocaleString('en-US')}`,
      `  bandwidth bytes  ${values.bandwidthBytes.toLocaleString('en-US')}`,
      ``,
    ].join('\n')
  } finally {
    await store.close()
  }
}

async function apply(
  command: UsageSetCommand,
  config: ServerConfig,
  store: Store,
): Promise<{ applied: Applied; values: UsageValues; where: string }> {
  if (config.redisUrl !== null) {
    const redis = openRedis(config.redisUrl)
    let failure: Error | undefined
    redis.on('error', (error: Error) => (failure ??= error))
    try {
      const counters = new RedisUsageCounters(redis, {
        keyPrefix: REDIS_KEY_PREFIX,
        seed: snapshotSeed(store.db),
      })
      const values = await setDirectly(counters, command)
      return { applied: 'redis', values, where: 'in Redis, for every node, from the next request' }
    } catch (error) {
      throw new UsageError(
        `could not set the counters in Redis (BURROW_REDIS_URL): ${(failure ?? (error as Error)).message}`,
      )
    } finally {
      redis.disconnect()
    }
  }
  if ((await store.getSetting(LIVE_COUNTERS_SETTING)) === 'redis') {
    throw new UsageError(
      'burrowd keeps its counters in Redis: run this command with the same BURROW_REDIS_URL',
    )
  }
  const url = await store.getSetting(ADMIN_URL_SETTING)
  const secret = await store.getSetting(ADMIN_SECRET_SETTING)
  if (url !== undefined && secret !== undefined) {
    const values = await setThroughService(url, secret, command)
    if (values !== null) {
      return {
        applied: 'service',
        values,
        where: `in the running burrowd (${url}), from its next request`,
      }
    }
  }
  const counters = await MemoryUsageCounters.open(store.db)
  try {
    const values = await setDirectly(counters, command)
    const none =
      url === undefined ? 'no burrowd has run on this database yet' : `nothing answers at ${url}`
    return {
      applied: 'database',
      values,
      where: `in the database (${none}); burrowd loads it when it starts`,
    }
  } finally {
    await counters.close()
  }
}

async function setDirectly(
  counters: UsageCounters,
  command: UsageSetCommand,
): Promise<UsageValues> {
  const now = new Date()
  if (command.toolCalls !== null)
    await counters.set(command.tunnel, 'tool_calls', command.toolCalls, now)
  if (command.bandwidthBytes !== null) {
    await counters.set(command.tunnel, 'bandwidth_bytes', command.bandwidthBytes, now)
  }
  return {
    period: periodOf(now),
    toolCalls: await counters.get(command.tunnel, 'tool_calls', now),
    bandwidthBytes: await counters.get(command.tunnel, 'bandwidth_bytes', now),
  }
}

/**
 * POST the change to the running service's admin endpoint; null when nothing listens there (no
 * burrowd running). Throws `UsageError` when something answers but does not take it.
 */
async function setThroughService(
  url: string,
  secret: string,
  command: UsageSetCommand,
): Promise<UsageValues | null> {
  const body = JSON.stringify({
    tunnel_id: command.tunnel,
    ...(command.toolCalls === null ? {} : { tool_calls: command.toolCalls }),
    ...(command.bandwidthBytes === null ? {} : { bandwidth_bytes: command.bandwidthBytes }),
  })
  let answer: { status: number; text: string }
  try {
    answer = await post(new URL(USAGE_ADMIN_PATH, url), secret, body)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') return null
    throw new UsageError(`the burrowd at ${url} did not answer: ${(error as Error).message}`)
  }
  let parsed: Record<string, unknown> = {}
  try {
    parsed = JSON.parse(answer.text) as Record<string, unknown>
  } catch {
    // Reported below with the status.
  }
  if (answer.status !== 200) {
    const why =
      typeof parsed.error === 'string'
        ? parsed.error
        : `HTTP ${answer.status}; is the process at that address a burrowd on this database?`
    throw new UsageError(`the burrowd at ${url} refused the change: ${why}`)
  }
  const { period, tool_calls: toolCalls, bandwidth_bytes: bandwidthBytes } = parsed
  if (
    typeof period !== 'string' ||
    typeof toolCalls !== 'number' ||
    typeof bandwidthBytes !== 'number'
  ) {
    throw new UsageError(
      `the burrowd at ${url} answered something unexpected: ${answer.text.slice(0, 200)}`,
    )
  }
  return { period, toolCalls, bandwidthBytes }
}

function post(url: URL, secret: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
      timeout: ADMIN_TIMEOUT_MS,
    })
    req.once('timeout', () =>
      req.destroy(new Error(`no answer within ${ADMIN_TIMEOUT_MS / 1000} s`)),
    )
    req.once('error', reject)
    req.once('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      )
      res.once('error', reject)
    })
    req.end(body)
  })
}
