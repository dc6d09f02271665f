/**
 * How burrowd connects to Redis (`BURROW_REDIS_URL`), on every connection it opens but the
 * cluster events' subscriber (cluster-events.ts): a command
 * waits at most `commandTimeout` for its answer, so that a Redis that stalls (paused, swapping, a
 * network that drops packets) fails requests with 503 at once rather than holding each of them,
 * and its body, for as long as the stall lasts; and a command is retried once while Redis is
 * down, then fails. Found by a hostile review: `CLIENT PAUSE 25000` held every call for 25 s.
 * A command that timed out may still run once Redis answers again: a call refused then may be
 * counted. 5 s, not less: a node's own event loop, held by a long collection on a busy machine,
 * would otherwise time out commands Redis had answered.
 *
 * No command is sent twice: ioredis sent the commands whose replies a dropped connection lost
 * again once it had reconnected, and Redis, which had run them, ran them again (a call counted in
 * a connection blip was counted twice). Such a command fails instead (`redis-reply-lost.ts`,
 * wired by `openRedis`), as one that timed out does.
 */
import type { RedisOptions } from 'ioredis'

/** Milliseconds a Redis command may take before it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 5_000

/** The options of every connection burrowd makes to Redis (`openRedis`). */
export const REDIS_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 1,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  autoResendUnfulfilledCommands: false,
}
