/**
 * Everything quotas, sessions, meters and call history need in a running burrowd, opened from
 * the configuration in one place so `wire-services.ts` only passes the results on: live counters
 * and session places in process memory, or in Redis when `BURROW_REDIS_URL` is set (neither when
 * `BURROW_QUOTAS=off`); the quota gate and session cap for the edge; the call-history writer and
 * its retention purge; the periodic meter snapshot; and the admin endpoint of `usage set`.
 */
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '@burrow/protocol'
import type { Redis } from 'ioredis'
import type { ServerConfig } from '../config.js'
import { EdgeSessions } from './edge-sessions.js'
import type { Store } from '../store/store.js'
import { CallHistoryWriter } from './call-history.js'
import { HistoryPurger } from './history-purge.js'
import { MemorySessionTracker } from './memory-session-tracker.js'
import { MemoryUsageCounters } from './memory-usage-counters.js'
import { MeterSnapshots, snapshotSeed } from './meter-snapshots.js'
import { QuotaGate } from './quota-gate.js'
import type { QuotaWarningListener } from './quota-warning.js'
import { RedisSessionTracker } from './redis-session-tracker.js'
import { RedisUsageCounters } from './redis-usage-counters.js'
import { inheritUsage } from './inherit-usage.js'
import type { SessionTracker } from './session-tracker.js'
import { UsageAdminRoute } from './usage-admin-route.js'
import {
  ADMIN_SECRET_SETTING,
  ADMIN_URL_SETTING,
  LIVE_COUNTERS_SETTING,
  REDIS_KEY_PREFIX,
  type LiveCountersKind,
} from './usage-admin-settings.js'
import type { UsageCounters } from './usage-counters.js'
import { openRedis } from '../store/open-redis.js'

/** Options of `openQuotaServices`. */
export interface QuotaServicesOptions {
  /** Told when a tunnel's counter crosses 80% of its limit. Default: an info log line. */
  readonly onQuotaWarning?: QuotaWarningListener
}

/** What `wireServices` wires: the edge's parts, the admin route, and one `close`. */
export interface QuotaServices {
  /** Spread into `EdgeOptions`. */
  readonly edge: {
    readonly quotas: QuotaGate | null
    readonly sessions: EdgeSessions | null
    readonly history: CallHistoryWriter
  }
  /** The live counters (null when quotas are off). */
  readonly counters: UsageCounters | null
  /** Start tunnel `to`'s month where deleted tunnel `from`'s stood; undefined when quotas are off. */
  readonly inheritUsage: ((from: string, to: string) => Promise<void>) | undefined
  /** Answer `req` when it is for the admin endpoint; false when it is not (the app's then). */
  handleAdmin(req: IncomingMessage, res: ServerResponse): Promise<void> | false
  /** Record where this node listens, so `burrowd usage set` finds it. */
  advertise(port: number): Promise<void>
  /** Take a last meter snapshot, write the queued history, and close counters and Redis. */
  close(): Promise<void>
}

/** Open the quota services for `config` over `store`. */
export async function openQuotaServices(
  config: ServerConfig,
  store: Store,
  log: Logger,
  options: QuotaServicesOptions = {},
): Promise<QuotaServices> {
  const redis = config.quotas && config.redisUrl ? connectRedis(config.redisUrl, log) : null
  const kind: LiveCountersKind = !config.quotas ? 'off' : redis ? 'redis' : 'memory'
  const idleMs = config.sessionIdleSecs * 1000
  let counters: UsageCounters | null = null
  let tracker: SessionTracker | null = null
  if (redis) {
    counters = new RedisUsageCounters(redis, {
      keyPrefix: REDIS_KEY_PREFIX,
      seed: snapshotSeed(store.db),
    })
    tracker = new RedisSessionTracker(redis, { keyPrefix: REDIS_KEY_PREFIX, idleMs })
  } else if (config.quotas) {
    counters = await MemoryUsageCounters.open(store.db, { log })
    tracker = new MemorySessionTracker({ idleMs })
  }
  // Logged for operators by the gate when raised (once, not at each offer again); then handed to
  // the listener (outbound webhooks), if any.
  const onQuotaWarning: QuotaWarningListener = (w) => options.onQuotaWarning?.(w)
  const quotas = counters ? new QuotaGate({ counters, log, onQuotaWarning }) : null
  const sessions = tracker ? new EdgeSessions(tracker, log) : null
  const history = new CallHistoryWriter(store.db, { log })
  const purger = new HistoryPurger(store.db, { log })
  const snapshots = counters
    ? new MeterSnapshots(store.db, counters, { log, intervalMs: config.meterSnapshotSecs * 1000 })
    : null
  const secret = await store.setSettingIfAbsent(
    ADMIN_SECRET_SETTING,
    randomBytes(32).toString('base64url'),
  )
  const admin = new UsageAdminRoute({ secret, counters, log })

  return {
    edge: { quotas, sessions, history },
    counters,
    inheritUsage: counters ? (from, to) => inheritUsage(counters, from, to) : undefined,
    handleAdmin: (req, res) => (admin.matches(req) ? admin.handle(req, res) : false),
    async advertise(port) {
      const host = config.listen.host
      const address =
        host === '0.0.0.0' || host === 'localhost'
          ? '127.0.0.1'
          : host === '::'
            ? '[::1]'
            : host.includes(':')
              ? `[${host}]`
              : host
      await putSetting(store, ADMIN_URL_SETTING, `http://${address}:${port}`)
      await putSetting(store, LIVE_COUNTERS_SETTING, kind)
    },
    async close() {
      await quotas?.drain()
      quotas?.close()
      await snapshots?.close()
      await purger.close()
      await history.close()
      await counters?.close()
      await sessions?.close()
      await tracker?.close()
      if (redis) await redis.quit().catch(() => {})
    },
  }
}

/** A Redis connection that fails a command fast while Redis is away, and logs why. */
function connectRedis(url: string, log: Logger): Redis {
  const redis = openRedis(url)
  let lastLog = 0
  redis.on('error', (error: Error) => {
    if (Date.now() - lastLog < 10_000) return
    lastLog = Date.now()
    log.error(`redis: ${error.message}`)
  })
  return redis
}

async function putSetting(store: Store, key: string, value: string): Promise<void> {
  await store.db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute()
}
