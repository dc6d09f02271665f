/**
 * A Lua script, sent whole with EVAL every time it runs. Redis runs a script with everything
 * else blocked, which is what makes the counters' and sessions' check-and-change atomic across
 * nodes; and it runs a connection's commands in the order they were sent, which the sessions'
 * and the tunnel directory's scripts rely on (a renewal sent before an END must not land after
 * it). Scripts used to run by SHA1 (EVALSHA), sent whole only after Redis refused with NOSCRIPT
 * (its cache emptied by a restart, a failover or SCRIPT FLUSH): a script sent after the refused
 * one, whose SHA1 Redis knew again, then ran before it. Redis hashes the body of an EVAL and
 * keeps the compiled script, so sending it whole costs only its bytes on the connection (about
 * a microsecond per run, measured).
 */

import type { Redis } from 'ioredis'

/** One Lua script. */
export class RedisScript {
  readonly #source: string

  constructor(source: string) {
    this.#source = source
  }

  /** Run the script with `keys` and `args` on `redis` and return its raw reply. */
  async run(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    return redis.eval(this.#source, keys.length, ...keys, ...args)
  }
}
