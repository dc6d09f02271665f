/**
 * A connection of burrowd's to Redis: `REDIS_OPTIONS` (the command timeout, one retry, no
 * command sent twice), and a command whose reply a dropped connection lost failed at once.
 */
import { Redis } from 'ioredis'
import type { RedisOptions } from 'ioredis'
import { failLostReplies } from './redis-reply-lost.js'
import { REDIS_OPTIONS } from './redis-options.js'

/** Connect to `url` with `REDIS_OPTIONS`, `overrides` on top (tests shorten the timeout). */
export function openRedis(url: string, overrides: RedisOptions = {}): Redis {
  const redis = new Redis(url, { ...REDIS_OPTIONS, ...overrides })
  failLostReplies(redis)
  return redis
}
