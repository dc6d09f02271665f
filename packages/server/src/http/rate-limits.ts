/**
 * Where burrowd's rate limiters are made: `localRateLimits` keeps each in this process alone;
 * with several nodes, cluster/shared-rate-limits.ts makes limiters every node keeps together.
 * Features ask for their limiters by name here and do not know which they got.
 */
import { RateLimiter, type RateLimiterOptions } from './rate-limiter.js'

/** Makes rate limiters. */
export interface RateLimits {
  /**
   * A limiter named `name` (the same name on every node, one limiter per name and process).
   * Shared limiters' keys travel between nodes: keys made from emails or secrets are hashed by
   * the caller.
   */
  limiter(name: string, options: RateLimiterOptions): RateLimiter
}

/** One node: limiters are this process's own. */
export const localRateLimits: RateLimits = {
  limiter: (_name, options) => new RateLimiter(options),
}
