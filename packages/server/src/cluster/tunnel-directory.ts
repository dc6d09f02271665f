/**
 * Which node holds each tunnel's client connection, in Redis, for several burrowd nodes: a hash
 * `dir:<tunnel>` {node, url, epoch} that expires unless its holder refreshes it. Every claim
 * takes the next epoch of the tunnel (`dir-epoch:<tunnel>`, kept a day past the last claim or
 * refresh; never less than Redis's clock in ms, so that it grows past a restart that lost it),
 * so the newest connection wins
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

/**
 * KEYS: entry, epoch counter. ARGV: node, url, ttl ms, counter ttl ms. Returns the new epoch: the
 * next of the counter, and at least Redis's clock in milliseconds, so that a claim made after
 * Redis lost the counter (restarted empty) still comes after every claim made before (the
 * counter runs ahead of the clock only by the claims of one tunnel in one millisecond). Counted
 * from 1 again, it came before them: a holder writing its lost entry back took the tunnel from
 * the newer connection, whose client was told another `burrow up` had taken it.
 */
const CLAIM = new RedisScript(`
local epoch = redis.call('INCR', KEYS[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if epoch < now then
  epoch = now
  redis.call('SET', KEYS[2], string.format('%.0f', now))
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'url', ARGV[2], 'epoch', epoch)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return epoch
`)

/**
 * KEYS: entry, epoch counter. ARGV: epoch, ttl ms, node, url, counter ttl ms. Returns 1 while the epoch is current,
 * 0 when another claim took the tunnel since, and 2 when the entry was gone, or named an older
 * epoch, with no newer claim made (Redis lost it: restarted empty, evicted it, failed over to a
 * replica that was behind, or the holder could not refresh in time; an older holder that
 * refreshed first after such a loss wrote its own back), which restores it, and the counter.
 */
const REFRESH = new RedisScript(`
local current = redis.call('HGET', KEYS[1], 'epoch')
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  return 1
end
local epoch = tonumber(ARGV[1])
if current and tonumber(current) > epoch then return 0 end
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
if counter > epoch then return 0 end
if counter < epoch then redis.call('SET', KEYS[2], ARGV[1]) end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], 'node', ARGV[3], 'url', ARGV[4], 'epoch', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 2
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
  /**
   * How long a tunnel's epoch counter outlives its last claim or refresh (default a day). It
   * fences holders that are seconds behind; kept for good, every tunnel ever connected (and
   * deleted since) left a key in Redis, which a tenant creating, connecting and deleting tunnels
   * in a loop grew without bound.
   */
  readonly counterTtlMs?: number
}

/** The tunnel → node directory. */
export class TunnelDirectory {
  readonly #redis: Redis
  readonly #prefix: string
  readonly ttlMs: number
  readonly #counterTtlMs: number

  constructor(opts: TunnelDirectoryOptions) {
    this.#redis = opts.redis
    this.#prefix = opts.keyPrefix ?? ''
    this.ttlMs = opts.ttlMs ?? 15_000
    this.#counterTtlMs = opts.counterTtlMs ?? 24 * 3600_000
  }

  /** Record that `node` now holds `tunnelId`; returns the epoch of this hold. */
  async claim(tunnelId: string, node: string, url: string): Promise<number> {
    const epoch = await CLAIM.run(
      this.#redis,
      [this.#entry(tunnelId), this.#counter(tunnelId)],
      [node, url, this.ttlMs, this.#counterTtlMs],
    )
    return Number(epoch)
  }

  /**
   * Keep `node`'s hold of `epoch` alive: `held` while it is the current one, `restored` when its
   * entry was gone and no newer claim was made since (it is written again), `lost` when another
   * claim took the tunnel.
   */
  async refresh(
    tunnelId: string,
    epoch: number,
    node: string,
    url: string,
  ): Promise<'held' | 'restored' | 'lost'> {
    const result = await REFRESH.run(
      this.#redis,
      [this.#entry(tunnelId), this.#counter(tunnelId)],
      [epoch, this.ttlMs, node, url, this.#counterTtlMs],
    )
    return result === 1 ? 'held' : result === 2 ? 'restored' : 'lost'
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

  #counter(tunnelId: string): string {
    return `${this.#prefix}dir-epoch:${tunnelId}`
  }
}
