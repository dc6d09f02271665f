/**
 * Everything governance needs in a running burrowd, opened from the configuration: the policies
 * (cached per tunnel, dropped on change through cluster events), the rate-limit buckets (in
 * process, or in Redis with `BURROW_REDIS_URL`), the per-method metrics, the live tail, the
 * call-history sink that feeds history, metrics and the tail together, and the rug-pull pins.
 */
import type { Logger } from '@burrow/protocol'
import {
  LocalClusterEvents,
  RedisClusterEvents,
  type ClusterEvents,
} from '../cluster/cluster-events.js'
import type { ServerConfig } from '../config.js'
import type { CallHistorySink } from '../quota/call-history.js'
import { REDIS_KEY_PREFIX } from '../quota/usage-admin-settings.js'
import { storedZeroKnowledge } from '../store/policy-store.js'
import type { Store } from '../store/store.js'
import {
  MemoryCallRateLimits,
  RedisCallRateLimits,
  type CallRateLimits,
} from './call-rate-limits.js'
import { CallMetrics } from './call-metrics.js'
import { GovernedHistory } from './governed-history.js'
import { LiveTail } from './live-tail.js'
import { Policies } from './policies.js'
import { SharedRateLimits } from '../cluster/shared-rate-limits.js'
import { localRateLimits, type RateLimits } from '../http/rate-limits.js'
import { ToolPins, type ToolChange } from './tool-pins.js'
import { openRedis } from '../store/open-redis.js'
import { SUBSCRIPTION_WAIT_MS, subscribedWithin } from '../cluster/subscribed-within.js'

/** The running governance services. */
export interface GovernanceServices {
  readonly events: ClusterEvents
  /** Rate limits every node keeps together (failed sign-ins, policy writes, …). */
  readonly limits: RateLimits
  readonly policies: Policies
  readonly rateLimits: CallRateLimits
  readonly metrics: CallMetrics
  readonly tail: LiveTail
  /** The call-history sink for the edge: history, metrics and the live tail. */
  readonly history: CallHistorySink
  /** Rug-pull protection's pins. */
  readonly pins: ToolPins
  close(): Promise<void>
}

/** What rug-pull protection needs from the rest of burrowd. */
export interface RugPullWiring {
  /** Where owners approve tools: the dashboard's tunnels, e.g. `https://example.com/dashboard/tunnels/`. */
  readonly dashboardUrl: string
  /** Raise `tool.changed`. */
  readonly onToolChange: (change: ToolChange) => Promise<void>
}

/** Options of `openGovernance` (tests shorten the wait). */
export interface GovernanceOptions {
  /** Milliseconds to wait for the cluster events' subscription (default `SUBSCRIPTION_WAIT_MS`). */
  readonly subscriptionWaitMs?: number
}

/**
 * Open governance over `store`, wrapping the call-history writer `history`. With Redis, resolves
 * once this node hears the other nodes' events, its own listeners in place, or after
 * `subscriptionWaitMs` with a warning (cluster/subscribed-within.ts).
 */
export async function openGovernance(
  config: ServerConfig,
  store: Store,
  history: CallHistorySink,
  log: Logger,
  nodeId: string,
  rugPull: RugPullWiring,
  opts: GovernanceOptions = {},
): Promise<GovernanceServices> {
  const redis = config.redisUrl ? openRedis(config.redisUrl) : null
  redis?.on('error', (err: Error) => log.debug(`governance redis: ${err.message}`))
  const redisEvents = config.redisUrl
    ? new RedisClusterEvents({
        url: config.redisUrl,
        node: nodeId,
        log,
        keyPrefix: REDIS_KEY_PREFIX,
      })
    : null
  const events: ClusterEvents = redisEvents ?? new LocalClusterEvents()
  const limits: RateLimits = config.redisUrl
    ? new SharedRateLimits({ events, node: nodeId })
    : localRateLimits
  const policies = new Policies({ store: store.policies, events, log, limits })
  const resuming = policies.resumeErasures()
  const rateLimits: CallRateLimits = redis
    ? new RedisCallRateLimits(redis, REDIS_KEY_PREFIX)
    : new MemoryCallRateLimits()
  const metrics = new CallMetrics(store.db, { log })
  // Bodies go to a page only while the stored policy, not this node's cached one, keeps content.
  const tail = new LiveTail(async (tunnelId) => !(await storedZeroKnowledge(store.db, tunnelId)))
  // Records that waited to be written while their tunnel turned zero-knowledge lose their content.
  history.keepContentIf?.(
    async (tunnelId) => !(await policies.latest(tunnelId)).policy.zeroKnowledge,
  )
  const pins = new ToolPins({
    store: store.toolPins,
    events,
    log,
    dashboardUrl: rugPull.dashboardUrl,
    onChange: rugPull.onToolChange,
    zeroKnowledgeNow: async (tunnelId) => (await policies.latest(tunnelId)).policy.zeroKnowledge,
  })
  if (redisEvents) {
    await subscribedWithin(redisEvents, opts.subscriptionWaitMs ?? SUBSCRIPTION_WAIT_MS, log)
  }
  return {
    events,
    limits,
    policies,
    rateLimits,
    metrics,
    tail,
    history: new GovernedHistory(history, metrics, tail),
    pins,
    async close() {
      await resuming
      await pins.settled()
      await metrics.close()
      await rateLimits.close()
      await events.close()
      if (redis) await redis.quit().catch(() => {})
    },
  }
}
