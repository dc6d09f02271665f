/**
 * Rate limits every node keeps together. Each node keeps its own buckets (a check stays
 * synchronous and costs no round trip to Redis) and tells the others what it spent, over the
 * cluster events; each node charges what the others spent to its own buckets. So a stranger whose
 * requests a load balancer spreads over N nodes gets one limit, not N: failed sign-ins, sign-ups,
 * reset mails, OAuth client registrations, policy writes and the like. Exact to within the time
 * an event takes between nodes (what nodes allowed at once past the limit is owed: `charge` puts
 * the buckets in debt); a node that starts, or that misses events while its Redis
 * connection is down, begins from full buckets, as a single node does after a restart. A spend
 * reported for a key a node has no bucket for, while all its places hold buckets not yet
 * refilled, is not counted there (`RateLimiter.charge`): each node keeps at most its `maxKeys`
 * buckets however many keys the others see.
 *
 * Limits that protect one node's own resources (its share of outgoing fetches, say) are not
 * shared: they are made with `new RateLimiter` where they are used.
 */
import { RateLimiter, type RateLimiterOptions } from '../http/rate-limiter.js'
import type { RateLimits } from '../http/rate-limits.js'
import type { ClusterEvents } from './cluster-events.js'

/** Longest key told to other nodes; a longer one stays this node's own. */
const MAX_SHARED_KEY = 512

/** Limiters shared with the other nodes through `events`. */
export class SharedRateLimits implements RateLimits {
  readonly #events: ClusterEvents
  readonly #node: string
  readonly #limiters = new Map<string, RateLimiter>()

  constructor(opts: { events: ClusterEvents; node: string }) {
    this.#events = opts.events
    this.#node = opts.node
    opts.events.subscribe((event) => {
      if (event.type !== 'spent' || event.node === this.#node) return
      const delta = event.delta === -1 ? -1 : 1
      if (typeof event.key !== 'string' || event.key.length > MAX_SHARED_KEY) return
      this.#limiters.get(event.limit)?.charge(event.key, delta)
    })
  }

  limiter(name: string, options: RateLimiterOptions): RateLimiter {
    if (this.#limiters.has(name)) throw new Error(`rate limit ${name} is made twice`)
    const limiter = new RateLimiter({
      ...options,
      onSpend: (key, delta) => {
        options.onSpend?.(key, delta)
        if (key.length > MAX_SHARED_KEY) return
        void this.#events.publish({ type: 'spent', node: this.#node, limit: name, key, delta })
      },
    })
    this.#limiters.set(name, limiter)
    return limiter
  }
}
