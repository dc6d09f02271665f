/**
 * Changes every node must apply at once, over Redis pub/sub: an account's plan or a tunnel's
 * policy, tools or key changed, or a custom domain (drop what is cached about it), a tunnel was
 * taken over by another node (drop the local client), a tunnel's access changed (check its open
 * requests again), how many listings a node has in flight for an agent, what a node spent of a
 * shared rate limit. One channel; messages are
 * small JSON objects; a node ignores what it sent itself. Without Redis there is one node, and
 * events are delivered in process.
 */
import { Redis } from 'ioredis'
import type { Logger } from '@burrow/protocol'
import { openRedis } from '../store/open-redis.js'

/** One event. */
export type ClusterEvent =
  | { readonly type: 'account'; readonly accountId: string }
  | { readonly type: 'tunnel'; readonly tunnelId: string }
  /** A custom domain was added, removed, verified or lapsed: routes cached anywhere are stale. */
  | { readonly type: 'domains' }
  | { readonly type: 'disconnect'; readonly tunnelId: string; readonly reason: string }
  | {
      readonly type: 'taken'
      readonly tunnelId: string
      readonly node: string
      readonly epoch: number
    }
  /** A tunnel's access settings changed, or one of its agent tokens or grants was revoked. */
  | { readonly type: 'access'; readonly tunnelId: string }
  /**
   * How many `tools/list` requests `node` has in flight for the tunnel and scope hashed in `key`
   * (edge/pending-listings.ts): told when it changes, and again while it is not 0.
   */
  | {
      readonly type: 'listing'
      readonly node: string
      readonly key: string
      readonly count: number
    }
  /**
   * `node` spent one request of `key` in the shared rate limit `limit` (`delta` 1), or gave one
   * back (-1): cluster/shared-rate-limits.ts.
   */
  | {
      readonly type: 'spent'
      readonly node: string
      readonly limit: string
      readonly key: string
      readonly delta: 1 | -1
    }

/** Where events go and come from. */
export interface ClusterEvents {
  /**
   * Tell every node, this one included (its listeners at once). Resolves once the other nodes'
   * copies are on their way (never rejects: a failure is logged), so a caller that answers after
   * it has told them before its client can reach another node.
   */
  publish(event: ClusterEvent): Promise<void>
  /** Called with every event, from any node. */
  subscribe(listener: (event: ClusterEvent) => void): void
  close(): Promise<void>
}

/** One node: events are delivered to this process's listeners. */
export class LocalClusterEvents implements ClusterEvents {
  readonly #listeners: ((event: ClusterEvent) => void)[] = []

  publish(event: ClusterEvent): Promise<void> {
    for (const l of this.#listeners) l(event)
    return Promise.resolve()
  }

  subscribe(listener: (event: ClusterEvent) => void): void {
    this.#listeners.push(listener)
  }

  close(): Promise<void> {
    return Promise.resolve()
  }
}

/**
 * Least time between two warnings about events Redis did not take. Shared rate limits publish
 * an event per failed sign-in, tunnel key or crash report: with Redis down, a warning each was a
 * log line per stranger's attempt.
 */
export const PUBLISH_FAILURES_LOG_MS = 60_000

/** Several nodes sharing a Redis. */
export class RedisClusterEvents implements ClusterEvents {
  readonly #pub: Redis
  readonly #sub: Redis
  readonly #channel: string
  readonly #node: string
  readonly #listeners: ((event: ClusterEvent) => void)[] = []
  readonly #log: Logger
  readonly #ready: Promise<void>
  readonly #now: () => number
  /** Publishes that failed since the last warning about them, and when that was. */
  #unreported = 0
  #warnedAt: number | null = null

  constructor(opts: {
    url: string
    node: string
    log: Logger
    keyPrefix?: string
    /** Milliseconds clock (tests pass their own). */
    now?: () => number
  }) {
    this.#now = opts.now ?? Date.now
    this.#pub = openRedis(opts.url, { lazyConnect: false })
    // The subscriber keeps ioredis's defaults: its SUBSCRIBE waits for Redis rather than failing
    // (a failed one would leave this node deaf to the others' events), and it resubscribes
    // itself after every reconnection. It only subscribes: a SUBSCRIBE sent again after a
    // reconnection (ioredis resends what lost its reply) changes nothing twice.
    // eslint-disable-next-line no-restricted-syntax -- the subscriber, as said above
    this.#sub = new Redis(opts.url, { lazyConnect: false })
    this.#channel = `${opts.keyPrefix ?? ''}events`
    this.#node = opts.node
    this.#log = opts.log
    this.#sub.on('message', (_channel: string, text: string) => this.#receive(text))
    this.#ready = this.#sub.subscribe(this.#channel).then(
      () => undefined,
      (err: Error) => this.#log.warn(`cluster events: could not subscribe: ${err.message}`),
    )
    this.#pub.on('error', (err: Error) => this.#log.debug(`cluster events: ${err.message}`))
    this.#sub.on('error', (err: Error) => this.#log.debug(`cluster events: ${err.message}`))
  }

  /** Resolves once this node receives events. */
  ready(): Promise<void> {
    return this.#ready
  }

  publish(event: ClusterEvent): Promise<void> {
    for (const l of this.#listeners) l(event)
    return this.#pub.publish(this.#channel, JSON.stringify({ from: this.#node, event })).then(
      () => this.#published(),
      (err: Error) => this.#publishFailed(err),
    )
  }

  /** Redis took an event: what failed before it and was not told yet is told now. */
  #published(): void {
    if (this.#unreported === 0) return
    this.#log.warn(`cluster events: ${this.#unreported} more events could not be published`)
    this.#unreported = 0
  }

  /** An event Redis did not take: a warning at once, then one a minute with the count. */
  #publishFailed(err: Error): void {
    const now = this.#now()
    this.#unreported++
    if (this.#warnedAt !== null && now - this.#warnedAt < PUBLISH_FAILURES_LOG_MS) return
    const what = this.#unreported === 1 ? 'an event' : `${this.#unreported} events`
    this.#log.warn(`cluster events: could not publish ${what}: ${err.message}`)
    this.#unreported = 0
    this.#warnedAt = now
  }

  subscribe(listener: (event: ClusterEvent) => void): void {
    this.#listeners.push(listener)
  }

  async close(): Promise<void> {
    // A connection that never reached Redis would wait for it to say goodbye: it is dropped.
    const end = (redis: Redis) =>
      redis.status === 'ready' ? redis.quit() : Promise.resolve(redis.disconnect())
    await Promise.allSettled([end(this.#sub), end(this.#pub)])
  }

  #receive(text: string): void {
    let message: { from?: unknown; event?: ClusterEvent }
    try {
      message = JSON.parse(text) as typeof message
    } catch {
      return
    }
    if (message.from === this.#node || typeof message.event?.type !== 'string') return
    for (const l of this.#listeners) l(message.event)
  }
}
