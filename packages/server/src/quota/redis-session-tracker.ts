/**
 * Session places shared by several burrowd nodes through Redis: one sorted set per tunnel,
 * `s:<tunnel>` (after an optional prefix), whose members are `r:<reservation>` and
 * `s:<session id>` scored by the epoch millisecond they expire, and beside it `b:<tunnel>`, the
 * sessions held in use: one mark per node holding each, `s:<session id> <holder>`, scored by the
 * end of its lease. A session is in use while any node's mark is live: each node renews and
 * drops only its own (before, one mark per session was dropped by whichever node's exchange
 * ended first, so a session whose GET stream was open on one node went idle when a POST of it
 * ended on another, and a newcomer took its place). Lua scripts drop expired members, check the
 * count, displace the session idle the longest and add in one step (Redis blocks everything
 * else meanwhile), so the cap holds across nodes. The keys expire once their last member would
 * have.
 */

import { randomUUID } from 'node:crypto'
import type { Redis, RedisOptions } from 'ioredis'
import { openRedis } from '../store/open-redis.js'
import { checkCap, checkSessionInput } from './check-session-input.js'
import { RedisScript } from './redis-script.js'
import { DEFAULT_LEASE_MS, DEFAULT_RESERVATION_MS } from './session-tracker.js'
import type { ReserveResult, SessionTracker, SessionTrackerOptions } from './session-tracker.js'

/**
 * Lua: the sessions of KEYS[2] held in use by some node, as a set (a mark is `<member> <holder>`;
 * one written before marks named their node is the member alone).
 */
const HELD = `
local held = {}
for _, mark in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  held[string.match(mark, '^(.*) [^ ]*$') or mark] = true
end
`

/**
 * Lua: sets `displaced` to the session of KEYS[1] that no node holds (`held`, from HELD) whose
 * expiry comes first, the one idle the longest; leaves it as it was when there is none.
 */
const LONGEST_IDLE = `
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, 2) == 's:' and not held[member] then
    displaced = member
    break
  end
end
`

/**
 * KEYS[1] the places, KEYS[2] the held sessions; ARGV: now, cap, expiry, member, key expiry.
 * Returns {1|0, live count, displaced member or ''}.
 */
const RESERVE = new RedisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local live = redis.call('ZCARD', KEYS[1])
local displaced = ''
if live >= tonumber(ARGV[2]) then
  if tonumber(ARGV[2]) > 0 then
    ${HELD}
    ${LONGEST_IDLE}
  end
  if displaced == '' then
    return {0, live, ''}
  end
  redis.call('ZREM', KEYS[1], displaced)
  live = live - 1
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
return {1, live + 1, displaced}
`)

/**
 * KEYS[1] the places, KEYS[2] the held; ARGV: member, expiry, lease end, key expiry, now, cap,
 * this node's mark, '1' when renewing. A member not counted takes a free place, else the place
 * of the session not held whose expiry comes first (idle the longest); with none, 0 and nothing
 * changes, but for the mark of a renewal. A member not counted that a node holds in use (its
 * place was lost with Redis's data) goes on, marked, uncounted: its agent's requests through
 * another node are not refused while its stream is open on the first.
 */
const HOLD = new RedisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6]) then
  ${HELD}
  local displaced = ''
  if not held[ARGV[1]] and tonumber(ARGV[6]) > 0 then
    ${LONGEST_IDLE}
  end
  if held[ARGV[1]] or (displaced == '' and ARGV[8] == '1') then
    redis.call('ZADD', KEYS[2], ARGV[3], ARGV[7])
    redis.call('PEXPIREAT', KEYS[2], ARGV[4])
    if held[ARGV[1]] then
      return 1
    end
    return 0
  end
  if displaced == '' then
    return 0
  end
  redis.call('ZREM', KEYS[1], displaced)
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[7])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1
`)

/**
 * KEYS[1] the places, KEYS[2] the held; ARGV: member, now, expiry, key expiry, this node's mark.
 * Drops this node's mark; the session goes idle only when no other node's is live.
 */
const LET_GO = new RedisScript(`
redis.call('ZREM', KEYS[2], ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
${HELD}
if held[ARGV[1]] then
  return 0
end
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expires or tonumber(expires) <= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return 1
`)

/**
 * KEYS[1] the places, KEYS[2] the held; ARGV: reservation member, session member, expiry, key
 * expiry, and for a session opened in use this node's mark and its lease end.
 */
const OPEN = new RedisScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
if ARGV[5] then
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
  redis.call('PEXPIREAT', KEYS[2], ARGV[4])
end
return 1
`)

/** KEYS[1] the places, KEYS[2] the held; ARGV: session member. Every node's mark goes too. */
const END = new RedisScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
for _, mark in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if (string.match(mark, '^(.*) [^ ]*$') or mark) == ARGV[1] then
    redis.call('ZREM', KEYS[2], mark)
  end
end
return 1
`)

/** KEYS[1] the set; ARGV: session member, now, new expiry, key expiry. Live members only. */
const TOUCH = new RedisScript(`
local expires = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expires then
  return 0
end
if tonumber(expires) <= tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[3], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return 1
`)

/** Options of `RedisSessionTracker`. */
export interface RedisSessionTrackerOptions extends SessionTrackerOptions {
  /** Prepended to every key, e.g. `burrow:` on a shared Redis. Default none. */
  readonly keyPrefix?: string
}

/** Exact session places in Redis, shared by every node that uses the same Redis and prefix. */
export class RedisSessionTracker implements SessionTracker {
  readonly #redis: Redis
  #ownsConnection = false
  readonly #prefix: string
  readonly #idleMs: number
  readonly #reservationMs: number
  readonly #leaseMs: number
  readonly #clock: () => Date
  /** This node's name in its marks of sessions held in use (a tracker per node). */
  readonly #holder = randomUUID()
  #closed = false

  /** A tracker on an existing connection, which `close()` leaves open. */
  constructor(redis: Redis, options: RedisSessionTrackerOptions) {
    this.#redis = redis
    this.#prefix = options.keyPrefix ?? ''
    this.#idleMs = options.idleMs
    this.#reservationMs = options.reservationMs ?? DEFAULT_RESERVATION_MS
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS
    this.#clock = options.clock ?? (() => new Date())
  }

  /**
   * A tracker on a new connection to `url` (burrowd's options, `openRedis`, with `options.redis`
   * on top), which `close()` ends.
   */
  static open(
    url: string,
    options: RedisSessionTrackerOptions & { readonly redis?: RedisOptions },
  ): RedisSessionTracker {
    const tracker = new RedisSessionTracker(openRedis(url, options.redis), options)
    tracker.#ownsConnection = true
    return tracker
  }

  async reserve(tunnelId: string, cap: number, now: Date = this.#clock()): Promise<ReserveResult> {
    checkSessionInput(tunnelId)
    checkCap(cap)
    this.#assertOpen()
    const at = now.getTime()
    const reservation = randomUUID()
    let reply: unknown
    try {
      reply = await RESERVE.run(
        this.#redis,
        [this.#key(tunnelId), this.#heldKey(tunnelId)],
        [at, cap, at + this.#reservationMs, `r:${reservation}`, this.#keyExpiry(at)],
      )
    } catch (error) {
      // A reservation that timed out may still be written (a stalled Redis runs the script once
      // it resumes), and would hold its place for its 120 s though its initialize was answered
      // 503: the release queued behind it on the same connection runs after it. Found by a
      // hostile review (three initializes during a stall locked a Free tunnel for two minutes).
      this.#redis.zrem(this.#key(tunnelId), `r:${reservation}`).catch(() => {})
      throw error
    }
    if (
      !Array.isArray(reply) ||
      typeof reply[0] !== 'number' ||
      typeof reply[1] !== 'number' ||
      typeof reply[2] !== 'string'
    ) {
      throw new Error(`session tracker: unexpected reply ${JSON.stringify(reply)}`)
    }
    if (reply[0] !== 1) return { ok: false, open: reply[1] }
    const displaced = reply[2].slice(2)
    return displaced === '' ? { ok: true, reservation } : { ok: true, reservation, displaced }
  }

  async hold(
    tunnelId: string,
    sessionId: string,
    cap: number,
    now: Date = this.#clock(),
    renewing = false,
  ): Promise<boolean> {
    checkSessionInput(tunnelId, sessionId)
    checkCap(cap)
    this.#assertOpen()
    const at = now.getTime()
    const busyUntil = at + this.#leaseMs
    const reply = await HOLD.run(
      this.#redis,
      [this.#key(tunnelId), this.#heldKey(tunnelId)],
      [
        `s:${sessionId}`,
        Math.max(busyUntil, at + this.#idleMs),
        busyUntil,
        this.#keyExpiry(at),
        at,
        cap,
        this.#mark(sessionId),
        renewing ? '1' : '0',
      ],
    )
    if (reply !== 0 && reply !== 1) {
      throw new Error(`session tracker: unexpected reply ${JSON.stringify(reply)}`)
    }
    return reply === 1
  }

  async letGo(tunnelId: string, sessionId: string, now: Date = this.#clock()): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const at = now.getTime()
    await LET_GO.run(
      this.#redis,
      [this.#key(tunnelId), this.#heldKey(tunnelId)],
      [`s:${sessionId}`, at, at + this.#idleMs, this.#keyExpiry(at), this.#mark(sessionId)],
    )
  }

  async open(
    tunnelId: string,
    reservation: string,
    sessionId: string,
    now: Date = this.#clock(),
    held = false,
  ): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const at = now.getTime()
    const busyUntil = at + this.#leaseMs
    await OPEN.run(
      this.#redis,
      [this.#key(tunnelId), this.#heldKey(tunnelId)],
      [
        `r:${reservation}`,
        `s:${sessionId}`,
        held ? Math.max(busyUntil, at + this.#idleMs) : at + this.#idleMs,
        this.#keyExpiry(at),
        ...(held ? [this.#mark(sessionId), busyUntil] : []),
      ],
    )
  }

  async release(tunnelId: string, reservation: string): Promise<void> {
    checkSessionInput(tunnelId)
    this.#assertOpen()
    await this.#redis.zrem(this.#key(tunnelId), `r:${reservation}`)
  }

  async touch(tunnelId: string, sessionId: string, now: Date = this.#clock()): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    const at = now.getTime()
    await TOUCH.run(
      this.#redis,
      [this.#key(tunnelId)],
      [`s:${sessionId}`, at, at + this.#idleMs, this.#keyExpiry(at)],
    )
  }

  async end(tunnelId: string, sessionId: string): Promise<void> {
    checkSessionInput(tunnelId, sessionId)
    this.#assertOpen()
    await END.run(this.#redis, [this.#key(tunnelId), this.#heldKey(tunnelId)], [`s:${sessionId}`])
  }

  async count(tunnelId: string, now: Date = this.#clock()): Promise<number> {
    checkSessionInput(tunnelId)
    this.#assertOpen()
    return this.#redis.zcount(this.#key(tunnelId), `(${now.getTime()}`, '+inf')
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#ownsConnection) await this.#redis.quit()
  }

  /** This node's mark of `sessionId` held in use (session ids hold no space: visible ASCII). */
  #mark(sessionId: string): string {
    return `s:${sessionId} ${this.#holder}`
  }

  #key(tunnelId: string): string {
    return `${this.#prefix}s:${tunnelId}`
  }

  #heldKey(tunnelId: string): string {
    return `${this.#prefix}b:${tunnelId}`
  }

  /** When the sets may go: after any member written at `at` would have expired. */
  #keyExpiry(at: number): number {
    return at + Math.max(this.#idleMs, this.#reservationMs, this.#leaseMs)
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('session tracker is closed')
  }
}
