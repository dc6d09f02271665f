/**
 * Whether a request failed because burrowd could not reach Redis (down, restarting, stalled past
 * the command timeout of `redis-options.ts`, or its connection dropped before a reply,
 * `redis-reply-lost.ts`): such a request is answered `503` with `Retry-After`, saying so, rather
 * than as an internal error, since trying again shortly is what the agent should do.
 */
import { RedisReplyLostError } from './redis-reply-lost.js'

/** ioredis's messages for a command that could not be sent or answered. */
const REDIS_FAILURES = [
  /^Command timed out$/,
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
  /^Reached the max retries per request limit/,
]

/** True for an error of an unreachable Redis. */
export function isSharedStateUnavailable(err: Error): boolean {
  if (err.name === 'MaxRetriesPerRequestError' || err instanceof RedisReplyLostError) return true
  return REDIS_FAILURES.some((pattern) => pattern.test(err.message))
}

/** Seconds an agent is asked to wait before trying again. */
export const SHARED_STATE_RETRY_AFTER_S = 5
