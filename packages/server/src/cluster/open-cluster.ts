/**
 * Several nodes: with `BURROW_REDIS_URL` set, burrowd records the tunnels it holds in the Redis
 * directory and forwards requests for tunnels held elsewhere (`ClusterRouter`). Without Redis
 * there is one node, and requests go to this node's own clients.
 */
import { randomBytes } from 'node:crypto'
import type { Logger } from '@burrow/protocol'
import { startKeyRecheck } from '../broker/key-recheck.js'
import type { TunnelRegistry } from '../broker/tunnel-registry.js'
import type { ServerConfig } from '../config.js'
import { REDIS_KEY_PREFIX } from '../quota/usage-admin-settings.js'
import type { Store } from '../store/store.js'
import { tunnelKeyHashes } from '../store/tunnel-key-hashes.js'
import type { ClusterEvents } from './cluster-events.js'
import { ClusterRouter } from './cluster-router.js'
import { TunnelDirectory } from './tunnel-directory.js'
import { openRedis } from '../store/open-redis.js'

/** What `openCluster` needs. */
export interface ClusterParts {
  readonly config: ServerConfig
  readonly store: Store
  readonly registry: TunnelRegistry
  readonly events: ClusterEvents
  readonly nodeId: string
  /** The port this node listens on (for its default node URL). */
  readonly port: number
  readonly log: Logger
}

/** The cluster side of a node, when there is one. */
export interface Cluster {
  readonly router: ClusterRouter
  close(): Promise<void>
}

/** This node's URL as its peers reach it: `BURROW_NODE_URL`, else its listen address. */
export function nodeUrlFor(config: ServerConfig, port: number): string {
  if (config.nodeUrl !== null) return config.nodeUrl
  const host = config.listen.host
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}

/** Open the directory and node links when burrowd shares Redis with other nodes; else null. */
export async function openCluster(parts: ClusterParts): Promise<Cluster | null> {
  const { config, store, log } = parts
  if (config.redisUrl === null) return null
  const redis = openRedis(config.redisUrl)
  redis.on('error', (err: Error) => log.debug(`cluster redis: ${err.message}`))
  const secret = await store.setSettingIfAbsent(
    'cluster_secret',
    randomBytes(32).toString('base64url'),
  )
  const nodeUrl = nodeUrlFor(config, parts.port)
  const router = new ClusterRouter({
    nodeId: parts.nodeId,
    nodeUrl,
    secret,
    directory: new TunnelDirectory({ redis, keyPrefix: REDIS_KEY_PREFIX }),
    registry: parts.registry,
    events: parts.events,
    log,
    queueWaitMs: config.queueWaitMs,
  })
  // A key rotated or a tunnel deleted on another node is told by an event this node may miss.
  const keys = startKeyRecheck({
    registry: parts.registry,
    keyHashes: (ids) => tunnelKeyHashes(store.db, ids),
    log,
  })
  log.info(`cluster: node ${parts.nodeId} at ${nodeUrl}, sharing tunnels through Redis`)
  return {
    router,
    async close() {
      keys.stop()
      router.close()
      await redis.quit().catch(() => {})
    },
  }
}
