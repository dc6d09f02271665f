/**
 * Commands whose reply a dropped Redis connection lost. Redis may have run such a command (it
 * was sent; only its answer is missing), so it must be neither sent again nor taken as not run.
 * ioredis, with `autoResendUnfulfilledCommands` on (its default), sent each again once it had
 * reconnected: a call counted in a connection blip was counted twice, and its caller told only
 * of the second count. Off (`redis-options.ts`), ioredis forgets them: their callers waited for
 * the command timeout (5 s), or for ever on a connection without one. `failLostReplies` fails
 * them as soon as the connection closes, with `RedisReplyLostError`.
 */
import type { Redis } from 'ioredis'

/** A command was sent, and the connection closed before its reply: it may have run. */
export class RedisReplyLostError extends Error {
  constructor(command: string) {
    super(`the connection to Redis closed before the reply to ${command}, which may have run`)
    this.name = 'RedisReplyLostError'
  }
}

/**
 * Fail, with `RedisReplyLostError`, every command of `redis` still waiting for its reply when
 * its connection closes after it was ready. Commands made while it is down wait for the
 * reconnection as before (ioredis's offline queue: never sent, so safe to send).
 */
export function failLostReplies(redis: Redis): void {
  let ready = false
  redis.on('ready', () => (ready = true))
  redis.on('close', () => {
    // ioredis moves the unanswered commands of a ready connection aside as it closes, to send
    // again or forget once it is ready again; this runs before it reconnects (its 'close' event
    // is emitted on the next tick, a reconnection waits for a timer). The queue moved aside is
    // this one, emptied here.
    if (!ready) return
    ready = false
    const queue = redis.commandQueue
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      item.command.reject(new RedisReplyLostError(item.command.name))
    }
  })
}

/**
 * Whether a failed Redis command may still have run (or run later): its reply was lost, or it
 * timed out (a stalled Redis runs it once it resumes). Such a command's effect is unknown: sent
 * again, it may count twice. Other failures (not sent: Redis away, the connection closed, the
 * retries spent) mean it did not run.
 */
export function mayHaveRun(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof RedisReplyLostError || e.message === 'Command timed out') return true
  }
  return false
}
