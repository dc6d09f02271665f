/**
 * A Lua script run by its SHA1 (EVALSHA), sent whole only when Redis does not know it (after a
 * restart or failover empties the script cache). Redis runs a script with everything else
 * blocked, which is what makes the counters' and sessions' check-and-change atomic across nodes.
 */

import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'

/** One Lua script. */
export class RedisScript {
  readonly #source: string
  readonly #sha: string

  constructor(source: string) {
    this.#source = source
    this.#sha = createHash('sha1').update(source).digest('hex')
  }

  /** Run the script with `keys` and `args` on `redis` and return its raw reply. */
  async run(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args)
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return redis.eval(this.#source, keys.length, ...keys, ...args)
    }
  }
}
