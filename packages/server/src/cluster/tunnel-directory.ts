/**
 * Which node holds each tunnel's client connection, in Redis, for several burrowd nodes: a hash
 * `dir:<tunnel>` {node, url, epoch} that expires unless its holder refreshes it. Every claim
 * takes the next epoch of the tunnel (`dir-epoch:<tunnel>`, kept), so the newest connection wins
 * across nodes as it does on one, and a node whose epoch is no longer the current one is fenced:
 * its refreshes fail and requests it forwards or serves with the old epoch are refused.
 */
import type { Redis } from 'ioredis'
import { RedisScript } from '../quota/redis-script.js'

/** Where a tunnel is held. */
export interface DirectoryEntry {
  readonly node: string
  /** The holder's internal URL, for node-to-node forwarding. */
  readonly url: string
  readonly epoch: number
}

/** KEYS: entry, epoch counter. ARGV: node, url, ttl ms. Returns the new epoch. */
const CLAIM = new RedisScript(`
local epoch = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'url', ARGV[2], 'epoch', epoch)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return epoch
`)

/** KEYS: entry. ARGV: epoch, ttl ms. Returns 1 while the epoch is current, else 0. */
const REFRESH = new RedisScript(`
if redis.call('HGET', KEYS[1], 'epoch') == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

/** KEYS: entry. ARGV: epoch. Deletes the entry only if it is still this epoch's. */
const RELEASE = new RedisScript(`
if redis.call('HGET', KEYS[1], 'epoch') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

/** Options of `new TunnelDirectory`. */
export interface TunnelDirectoryOptions {
  readonly redis: Redis
  readonly keyPrefix?: string
  /** How long an entry lives without a refresh (default 15 s). */
  readonly ttlMs?: number
}

/** The tunnel → node directory. */
export class TunnelDirectory {
  readonly #redis: Redis
  readonly #prefix: string
  readonly ttlMs: number

  constructor(opts: TunnelDirectoryOptions) {
    this.#redis = opts.redis
    this.#prefix = opts.keyPrefix ?? ''
    this.ttlMs = opts.ttlMs ?? 15_000
  }

  /** Record that `node` now holds `tunnelId`; returns the epoch of this hold. */
  async claim(tunnelId: string, node: string, url: string): Promise<number> {
    const epoch = await CLAIM.run(
      this.#redis,
      [this.#entry(tunnelId), `${this.#prefix}dir-epoch:${tunnelId}`],
      [node, url, this.ttlMs],
    )
    return Number(epoch)
  }

  /** Keep the hold of `epoch` alive; false when another node took the tunnel (or it expired). */
  async refresh(tunnelId: string, epoch: number): Promise<boolean> {
    return (await REFRESH.run(this.#redis, [this.#entry(tunnelId)], [epoch, this.ttlMs])) === 1
  }

  /** Give the tunnel up, unless a newer hold replaced this one. */
  async release(tunnelId: string, epoch: number): Promise<void> {
    await RELEASE.run(this.#redis, [this.#entry(tunnelId)], [epoch])
  }

  /** Who holds `tunnelId` now, or null. */
  async lookup(tunnelId: string): Promise<DirectoryEntry | null> {
    const h = await this.#redis.hgetall(this.#entry(tunnelId))
    if (!h.node || !h.url || !h.epoch) return null
    return { node: h.node, url: h.url, epoch: Number(h.epoch) }
  }

  #entry(tunnelId: string): string {
    return `${this.#prefix}dir:${tunnelId}`
  }
}
