// burrowd's Prometheus metrics: valid exposition text, the families operators need, no labels
// that would multiply with tunnels.
import assert from 'node:assert/strict'
import perfHooks from 'node:perf_hooks'
import { describe, it, mock } from 'node:test'
import { EVENT_LOOP_SAMPLE_MS, ServiceMetrics } from '../../src/observability/service-metrics.js'
import { parsePrometheus } from '../helpers/parse-prometheus.js'

describe('ServiceMetrics', () => {
  it('renders parseable Prometheus text with the service families', async () => {
    const m = new ServiceMetrics({
      connections: () => 3,
      bodyBytes: () => 4096,
      answerBytes: () => 8192,
      queuedBytes: () => 1024,
    })
    m.edgeRequests.inc({ status: '200', policy_code: 'none' })
    m.edgeRequests.inc({ status: '429', policy_code: 'rate_limited' })
    m.edgeLatency.observe(0.004)
    m.refusals.inc({ policy_code: 'tool_denied' })
    m.brokerFrames.inc({ direction: 'in' }, 5)
    m.webhookDeliveries.inc({ outcome: 'delivered' })
    const { contentType, body } = await m.render()
    assert.match(contentType, /^text\/plain; version=0\.0\.4/)
    const families = new Map(parsePrometheus(body).map((f) => [f.name, f]))
    assert.equal(families.get('burrowd_tunnels_connected')?.metrics[0]?.value, '3')
    assert.equal(families.get('burrowd_edge_request_body_bytes')?.metrics[0]?.value, '4096')
    assert.equal(families.get('burrowd_edge_answer_copy_bytes')?.metrics[0]?.value, '8192')
    assert.equal(families.get('burrowd_tunnel_queued_bytes')?.metrics[0]?.value, '1024')
    const requests = families.get('burrowd_edge_requests_total')!
    assert.equal(requests.type, 'COUNTER')
    assert.equal(requests.metrics.length, 2)
    assert.equal(families.get('burrowd_edge_request_duration_seconds')?.type, 'HISTOGRAM')
    assert.ok(families.has('burrowd_process_resident_memory_bytes'))
    for (const f of families.values()) {
      for (const metric of f.metrics) {
        for (const label of Object.keys(metric.labels ?? {})) {
          assert.ok(!/tunnel|account/.test(label), `${f.name} has a per-tunnel label ${label}`)
        }
      }
    }
  })

  it("samples the event loop's lag ten times a second, not a hundred (an idle burrowd sleeps)", async () => {
    const monitor = mock.method(perfHooks, 'monitorEventLoopDelay')
    try {
      const m = new ServiceMetrics()
      assert.equal(monitor.mock.callCount(), 1)
      assert.deepEqual(monitor.mock.calls[0]!.arguments, [{ resolution: EVENT_LOOP_SAMPLE_MS }])
      assert.equal(EVENT_LOOP_SAMPLE_MS, 100)
      // The lag is still reported.
      const families = new Map(parsePrometheus((await m.render()).body).map((f) => [f.name, f]))
      assert.ok(families.has('burrowd_nodejs_eventloop_lag_p99_seconds'))
    } finally {
      monitor.mock.restore()
    }
  })

  it('adds the frames, bytes and answers counted on the hot path when the metrics are read', async () => {
    const m = new ServiceMetrics({ defaults: false })
    m.brokerFrames.inc({ direction: 'in' }, 2)
    const link = m.linkMeters()
    link.received(100)
    link.received(50)
    link.sent(10)
    const res = { statusCode: 429, getHeader: () => 'rate_limited' }
    m.edgeAnswered(res as never, performance.now())
    m.edgeAnswered({ statusCode: 200, getHeader: () => undefined } as never, performance.now())
    const read = async () =>
      new Map(parsePrometheus((await m.render()).body).map((f) => [f.name, f]))
    const value = (
      f: Map<string, ReturnType<typeof parsePrometheus>[number]>,
      name: string,
      labels: Record<string, string>,
    ) =>
      f
        .get(name)
        ?.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v))?.value
    let families = await read()
    assert.equal(value(families, 'burrowd_broker_frames_total', { direction: 'in' }), '4')
    assert.equal(value(families, 'burrowd_broker_frames_total', { direction: 'out' }), '1')
    assert.equal(value(families, 'burrowd_broker_bytes_total', { direction: 'in' }), '150')
    assert.equal(
      value(families, 'burrowd_edge_requests_total', {
        status: '429',
        policy_code: 'rate_limited',
      }),
      '1',
    )
    assert.equal(
      value(families, 'burrowd_edge_requests_total', { status: '200', policy_code: 'none' }),
      '1',
    )
    assert.equal(
      value(families, 'burrowd_policy_refusals_total', { policy_code: 'rate_limited' }),
      '1',
    )
    // Read again: nothing counted twice, and later counts add up.
    link.sent(5)
    families = await read()
    assert.equal(value(families, 'burrowd_broker_frames_total', { direction: 'in' }), '4')
    assert.equal(value(families, 'burrowd_broker_frames_total', { direction: 'out' }), '2')
    assert.equal(value(families, 'burrowd_broker_bytes_total', { direction: 'out' }), '15')
  })
})
