/**
 * What the aggregator counts, as an interface the metrics listener (`--metrics-addr`, see
 * docs/configuration.md)
 * implements: upstream failures and recoveries, fan-outs, `*\/list` cache hits, unknown-prefix
 * errors, id-table evictions, and per-upstream requests and bytes. The aggregator only calls these
 * methods; it never reads counters back, so a no-op implementation is a valid default.
 */

/** Counter hooks called by the aggregator. Every method must be cheap and must not throw. */
export interface AggregatorMetrics {
  /** Upstream `name` became unavailable (a crash, an unreachable server, a failed initialize). */
  upstreamFailure(name: string): void
  /** Upstream `name` is available again after a failure. */
  upstreamRecovery(name: string): void
  /** One agent message was sent to several upstreams (`logging/setLevel`). */
  fanout(method: string): void
  /** A `*\/list` page of upstream `name` was served from the cache. */
  listCacheHit(name: string, method: string): void
  /** An agent named a tool or prompt whose prefix is no known upstream. */
  unknownPrefix(): void
  /** The id table of an upstream was full: its oldest request was dropped and answered with an error. */
  idEviction(): void
  /** A request was sent to upstream `name`. */
  request(name: string, method: string): void
  /** Bytes of JSON-RPC messages received from (`in`) or sent to (`out`) upstream `name`. */
  bytes(name: string, direction: 'in' | 'out', n: number): void
}

/** Metrics that count nothing: the default when no metrics listener runs. */
export const noopAggregatorMetrics: AggregatorMetrics = Object.freeze({
  upstreamFailure: () => {},
  upstreamRecovery: () => {},
  fanout: () => {},
  listCacheHit: () => {},
  unknownPrefix: () => {},
  idEviction: () => {},
  request: () => {},
  bytes: () => {},
})

export default noopAggregatorMetrics
