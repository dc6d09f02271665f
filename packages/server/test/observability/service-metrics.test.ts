// burrowd's Prometheus metrics: valid exposition text, the families operators need, no labels
// that would multiply with tunnels.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ServiceMetrics } from '../../src/observability/service-metrics.js'
import { parsePrometheus } from '../helpers/parse-prometheus.js'

describe('ServiceMetrics', () => {
  it('renders parseable Prometheus text with the service families', async () => {
    const m = new ServiceMetrics({ connections: () => 3 })
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
})
