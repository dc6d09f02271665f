/**
 * The counters `burrow up` exposes at `GET /metrics` (docs/configuration.md), as prom-client
 * counters with the `burrow_` prefix in a registry of their own. Implements the aggregator's
 * `AggregatorMetrics` hooks; the single-upstream handler is counted through `MeteredHandler`. Label
 * values that come from agents (JSON-RPC method names) are the methods MCP defines, anything else
 * `other`: an agent cannot grow memory or the scrape, nor push the real methods out of the labels
 * by sending made-up ones first. Upstream names (the user's) are bounded too.
 */
import { Counter, Registry } from 'prom-client'
import type { AggregatorMetrics } from '../aggregator/aggregator-metrics.js'

/** Distinct values one label may take; further values are counted as `other`. */
const MAX_LABEL_VALUES = 64
/** What a label value may look like (MCP method names and upstream names fit). */
const LABEL_VALUE = /^[A-Za-z][A-Za-z0-9_./-]{0,63}$/

/**
 * The method label's values: the methods and notifications of MCP (2025-03-26 to 2026-07-28),
 * and the HTTP methods counted for a request without a JSON-RPC one.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
  'notifications/elicitation/complete',
  'notifications/tasks/status',
  'GET',
  'POST',
  'DELETE',
])

/** The method label for `method`: itself when MCP defines it, else `other`. */
function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other'
}

/** Remembers the values a label has taken and maps anything beyond the bound to `other`. */
class LabelBound {
  readonly #seen = new Set<string>()

  value(raw: string): string {
    if (this.#seen.has(raw)) return raw
    if (!LABEL_VALUE.test(raw) || this.#seen.size >= MAX_LABEL_VALUES) return 'other'
    this.#seen.add(raw)
    return raw
  }
}

/** prom-client counters for the CLI; every method is cheap and never throws. */
export class CliMetrics implements AggregatorMetrics {
  /** The registry `startMetrics` serves. */
  readonly registry: Registry
  readonly #failures: Counter<'upstream'>
  readonly #recoveries: Counter<'upstream'>
  readonly #fanouts: Counter<'method'>
  readonly #listCacheHits: Counter<'upstream' | 'method'>
  readonly #unknownPrefixes: Counter
  readonly #idEvictions: Counter
  readonly #requests: Counter<'upstream' | 'method'>
  readonly #bytes: Counter<'upstream' | 'direction'>
  readonly #upstreams = new LabelBound()

  constructor(registry: Registry = new Registry()) {
    this.registry = registry
    const registers = [registry]
    this.#failures = new Counter({
      name: 'burrow_upstream_failures_total',
      help: 'Times an upstream became unavailable (crash, unreachable, failed initialize).',
      labelNames: ['upstream'],
      registers,
    })
    this.#recoveries = new Counter({
      name: 'burrow_upstream_recoveries_total',
      help: 'Times an upstream became available again after a failure.',
      labelNames: ['upstream'],
      registers,
    })
    this.#fanouts = new Counter({
      name: 'burrow_fanout_total',
      help: 'Agent messages sent to several upstreams at once.',
      labelNames: ['method'],
      registers,
    })
    this.#listCacheHits = new Counter({
      name: 'burrow_list_cache_hits_total',
      help: '*/list pages served from the snapshot cache instead of the upstream.',
      labelNames: ['upstream', 'method'],
      registers,
    })
    this.#unknownPrefixes = new Counter({
      name: 'burrow_unknown_prefix_errors_total',
      help: 'Calls naming a tool or prompt whose prefix is no known upstream.',
      registers,
    })
    this.#idEvictions = new Counter({
      name: 'burrow_id_evictions_total',
      help: 'Requests dropped because an upstream id table was full.',
      registers,
    })
    this.#requests = new Counter({
      name: 'burrow_upstream_requests_total',
      help: 'Requests sent to each upstream, by JSON-RPC method (or HTTP method without one).',
      labelNames: ['upstream', 'method'],
      registers,
    })
    this.#bytes = new Counter({
      name: 'burrow_upstream_bytes_total',
      help: 'Bytes received from (in) and sent to (out) each upstream.',
      labelNames: ['upstream', 'direction'],
      registers,
    })
  }

  upstreamFailure(name: string): void {
    this.#failures.inc({ upstream: this.#upstreams.value(name) })
  }

  upstreamRecovery(name: string): void {
    this.#recoveries.inc({ upstream: this.#upstreams.value(name) })
  }

  fanout(method: string): void {
    this.#fanouts.inc({ method: methodLabel(method) })
  }

  listCacheHit(name: string, method: string): void {
    this.#listCacheHits.inc({
      upstream: this.#upstreams.value(name),
      method: methodLabel(method),
    })
  }

  unknownPrefix(): void {
    this.#unknownPrefixes.inc()
  }

  idEviction(): void {
    this.#idEvictions.inc()
  }

  request(name: string, method: string): void {
    this.#requests.inc({
      upstream: this.#upstreams.value(name),
      method: methodLabel(method),
    })
  }

  bytes(name: string, direction: 'in' | 'out', n: number): void {
    if (!(n > 0) || !Number.isFinite(n)) return
    this.#bytes.inc({ upstream: this.#upstreams.value(name), direction }, n)
  }
}
