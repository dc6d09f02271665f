/**
 * burrowd's own metrics for operators, in Prometheus text at `GET /metrics` on the service host:
 * tunnels connected, edge requests by status and policy code, edge latency, broker frames and
 * bytes, tunnel-key checks, quota and rate-limit refusals, webhook deliveries. No label names a tunnel or an
 * account: the series stay few however many tunnels there are (per-tunnel figures are the
 * dashboard's and the API's).
 */
import type { ServerResponse } from 'node:http'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { LinkMeters } from '../broker/tunnel-link.js'

/** The metrics, and the registry that renders them. */
export class ServiceMetrics {
  readonly registry = new Registry()
  readonly tunnelsConnected: Gauge
  readonly edgeRequests: Counter<'status' | 'policy_code'>
  readonly edgeLatency: Histogram
  readonly brokerFrames: Counter<'direction'>
  readonly brokerBytes: Counter<'direction'>
  readonly refusals: Counter<'policy_code'>
  readonly webhookDeliveries: Counter<'outcome'>
  readonly keyChecks: Counter<'outcome'>

  constructor(opts: { readonly defaults?: boolean; readonly connections?: () => number } = {}) {
    const registers = [this.registry]
    if (opts.defaults ?? true)
      collectDefaultMetrics({ register: this.registry, prefix: 'burrowd_' })
    const connections = opts.connections
    this.tunnelsConnected = new Gauge({
      name: 'burrowd_tunnels_connected',
      help: 'Tunnel client connections open on this node',
      registers,
      ...(connections
        ? {
            collect: function (this: Gauge) {
              this.set(connections())
            },
          }
        : {}),
    })
    this.edgeRequests = new Counter({
      name: 'burrowd_edge_requests_total',
      help: 'Public requests answered by the edge, by HTTP status and refusal policy code (none when relayed)',
      labelNames: ['status', 'policy_code'],
      registers,
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
    })
    this.brokerBytes = new Counter({
      name: 'burrowd_broker_bytes_total',
      help: 'Bytes of tunnel frames, received (in) and sent (out)',
      labelNames: ['direction'],
      registers,
    })
    this.refusals = new Counter({
      name: 'burrowd_policy_refusals_total',
      help: 'Requests refused by quotas, session caps, rate limits and tool policy, by policy code',
      labelNames: ['policy_code'],
      registers,
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
    const framesIn = this.brokerFrames.labels('in')
    const framesOut = this.brokerFrames.labels('out')
    const bytesIn = this.brokerBytes.labels('in')
    const bytesOut = this.brokerBytes.labels('out')
    return {
      received: (n) => {
        framesIn.inc()
        bytesIn.inc(n)
      },
      sent: (n) => {
        framesOut.inc()
        bytesOut.inc(n)
      },
    }
  }

  /** Count a public request answered on `res` (its status and refusal code), from `startedMs`. */
  edgeAnswered(res: ServerResponse, startedMs: number): void {
    const policy = res.getHeader('x-burrow-error')
    const code = typeof policy === 'string' ? policy : 'none'
    this.edgeRequests.inc({ status: String(res.statusCode), policy_code: code })
    if (code !== 'none') this.refusals.inc({ policy_code: code })
    this.edgeLatency.observe((performance.now() - startedMs) / 1000)
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
