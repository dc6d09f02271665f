/**
 * burrowd's own metrics for operators, in Prometheus text at `GET /metrics` on the service host:
 * tunnels connected, request body bytes held and waiting in tunnel streams, edge requests by status and policy code, edge latency, broker frames and
 * bytes, tunnel-key checks, quota and rate-limit refusals, webhook deliveries. No label names a tunnel or an
 * account: the series stay few however many tunnels there are (per-tunnel figures are the
 * dashboard's and the API's).
 */
import type { ServerResponse } from 'node:http'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { LinkMeters } from '../broker/tunnel-link.js'

/**
 * How often the event-loop lag of the default metrics is sampled, in ms. prom-client's default
 * (10) is a timer that wakes an idle burrowd 100 times a second; a tenth of that still gives a
 * scrape every 15 s 150 samples for its percentiles, and a stall long enough to matter still
 * delays a sample.
 */
export const EVENT_LOOP_SAMPLE_MS = 100

/**
 * Counts kept as plain numbers on the hot path (every frame, every request) and added to their
 * prom-client counters when the metrics are read: prom-client hashes the labels of every `inc`.
 */
class PendingCounts {
  readonly #counts = new Map<string, { readonly labels: Record<string, string>; n: number }>()

  add(key: string, labels: () => Record<string, string>, n: number): void {
    const known = this.#counts.get(key)
    if (known !== undefined) known.n += n
    else this.#counts.set(key, { labels: labels(), n })
  }

  /** Add what gathered to `counter`, and start again from zero. */
  addTo(counter: Counter<string>): void {
    for (const pending of this.#counts.values()) {
      if (pending.n > 0) counter.inc(pending.labels, pending.n)
      pending.n = 0
    }
  }
}

/** The metrics, and the registry that renders them. */
export class ServiceMetrics {
  readonly registry = new Registry()
  readonly tunnelsConnected: Gauge
  readonly bodyBytesHeld: Gauge
  readonly answerBytesHeld: Gauge
  readonly tunnelQueuedBytes: Gauge
  readonly edgeRequests: Counter<'status' | 'policy_code'>
  readonly edgeLatency: Histogram
  readonly brokerFrames: Counter<'direction'>
  readonly brokerBytes: Counter<'direction'>
  readonly refusals: Counter<'policy_code'>
  readonly webhookDeliveries: Counter<'outcome'>
  readonly keyChecks: Counter<'outcome'>
  readonly #frames = new PendingCounts()
  readonly #bytes = new PendingCounts()
  readonly #answered = new PendingCounts()
  readonly #refused = new PendingCounts()

  constructor(
    opts: {
      readonly defaults?: boolean
      readonly connections?: () => number
      /** Bytes of public request bodies the edge holds now. */
      readonly bodyBytes?: () => number
      /** Bytes of answer copies the edge holds now. */
      readonly answerBytes?: () => number
      /** Bytes waiting in streams to tunnel clients for their credit. */
      readonly queuedBytes?: () => number
    } = {},
  ) {
    const registers = [this.registry]
    if (opts.defaults ?? true)
      collectDefaultMetrics({
        register: this.registry,
        prefix: 'burrowd_',
        eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
      })
    this.tunnelsConnected = readGauge(
      'burrowd_tunnels_connected',
      'Tunnel client connections open on this node',
      registers,
      opts.connections,
    )
    this.bodyBytesHeld = readGauge(
      'burrowd_edge_request_body_bytes',
      'Bytes of public request bodies held now, from their first byte until their request is answered (bounded per address, per tunnel and per node)',
      registers,
      opts.bodyBytes,
    )
    this.answerBytesHeld = readGauge(
      'burrowd_edge_answer_copy_bytes',
      'Bytes of answers the edge holds copies of now, to tap or rewrite their messages as they pass (bounded per tunnel and per node)',
      registers,
      opts.answerBytes,
    )
    this.tunnelQueuedBytes = readGauge(
      'burrowd_tunnel_queued_bytes',
      'Bytes of request bodies waiting in streams to tunnel clients for the clients to take them (bounded by the request bodies held)',
      registers,
      opts.queuedBytes,
    )
    this.edgeRequests = new Counter({
      name: 'burrowd_edge_requests_total',
      help: 'Public requests answered by the edge, by HTTP status and refusal policy code (none when relayed)',
      labelNames: ['status', 'policy_code'],
      registers,
      collect: pendingInto(this.#answered),
    })
    this.edgeLatency = new Histogram({
      name: 'burrowd_edge_request_duration_seconds',
      help: 'Time from a public request to the end of its answer (a stream counts until it ends)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    })
    this.brokerFrames = new Counter({
      name: 'burrowd_broker_frames_total',
      help: 'Tunnel frames, received from (in) and sent to (out) tunnel clients',
      labelNames: ['direction'],
      registers,
      collect: pendingInto(this.#frames),
    })
    this.brokerBytes = new Counter({
      name: 'burrowd_broker_bytes_total',
      help: 'Bytes of tunnel frames, received (in) and sent (out)',
      labelNames: ['direction'],
      registers,
      collect: pendingInto(this.#bytes),
    })
    this.refusals = new Counter({
      name: 'burrowd_policy_refusals_total',
      help: 'Requests refused by quotas, session caps, rate limits and tool policy, by policy code',
      labelNames: ['policy_code'],
      registers,
      collect: pendingInto(this.#refused),
    })
    this.keyChecks = new Counter({
      name: 'burrowd_broker_key_checks_total',
      help: 'Tunnel client connections by the outcome of their key: valid, unknown, throttled (429 before any check), or error (the lookup failed)',
      labelNames: ['outcome'],
      registers,
    })
    this.webhookDeliveries = new Counter({
      name: 'burrowd_webhook_deliveries_total',
      help: 'Outbound webhook delivery attempts by outcome (delivered, failed, disabled)',
      labelNames: ['outcome'],
      registers,
    })
  }

  /** Meters for the broker's links (frames and bytes both ways). */
  linkMeters(): LinkMeters {
    const frames = this.#frames
    const bytes = this.#bytes
    return {
      received: (n) => {
        frames.add('in', IN, 1)
        bytes.add('in', IN, n)
      },
      sent: (n) => {
        frames.add('out', OUT, 1)
        bytes.add('out', OUT, n)
      },
    }
  }

  /** Count a public request answered on `res` (its status and refusal code), from `startedMs`. */
  edgeAnswered(res: ServerResponse, startedMs: number): void {
    const policy = res.getHeader('x-burrow-error')
    const code = typeof policy === 'string' ? policy : 'none'
    const status = res.statusCode
    this.#answered.add(
      `${status} ${code}`,
      () => ({ status: String(status), policy_code: code }),
      1,
    )
    if (code !== 'none') this.#refused.add(code, () => ({ policy_code: code }), 1)
    this.edgeLatency.observe((performance.now() - startedMs) / 1000)
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}

const IN = () => ({ direction: 'in' })
const OUT = () => ({ direction: 'out' })

/** A gauge set from `read` whenever the metrics are read (never set when `read` is absent). */
function readGauge(
  name: string,
  help: string,
  registers: Registry[],
  read: (() => number) | undefined,
): Gauge {
  return new Gauge({
    name,
    help,
    registers,
    ...(read
      ? {
          collect: function (this: Gauge) {
            this.set(read())
          },
        }
      : {}),
  })
}

/** A counter's `collect`: add the counts gathered since it was last read. */
function pendingInto(pending: PendingCounts) {
  return function (this: Counter<string>) {
    pending.addTo(this)
  }
}
