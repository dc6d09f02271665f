/**
 * The `burrow_` counters in the Prometheus text format: each hook shows up with its labels and
 * count, and label values that come from agents stay bounded.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CliMetrics } from '../../src/metrics/cli-metrics.js'

describe('CliMetrics', () => {
  it('exposes every counter with its labels after the hooks are called', async () => {
    const metrics = new CliMetrics()
    metrics.upstreamFailure('db')
    metrics.upstreamFailure('db')
    metrics.upstreamRecovery('db')
    metrics.fanout('logging/setLevel')
    metrics.listCacheHit('files', 'tools/list')
    metrics.unknownPrefix()
    metrics.idEviction()
    metrics.idEviction()
    metrics.request('files', 'tools/call')
    metrics.bytes('files', 'out', 120)
    metrics.bytes('files', 'in', 3000)
    metrics.bytes('files', 'in', 0)
    const text = await metrics.registry.metrics()
    for (const line of [
      'burrow_upstream_failures_total{upstream="db"} 2',
      'burrow_upstream_recoveries_total{upstream="db"} 1',
      'burrow_fanout_total{method="logging/setLevel"} 1',
      'burrow_list_cache_hits_total{upstream="files",method="tools/list"} 1',
      'burrow_unknown_prefix_errors_total 1',
      'burrow_id_evictions_total 2',
      'burrow_upstream_requests_total{upstream="files",method="tools/call"} 1',
      'burrow_upstream_bytes_total{upstream="files",direction="out"} 120',
      'burrow_upstream_bytes_total{upstream="files",direction="in"} 3000',
    ]) {
      assert.ok(text.split('\n').includes(line), `missing "${line}" in:\n${text}`)
    }
    assert.match(text, /# TYPE burrow_upstream_requests_total counter/)
    assert.match(text, /# HELP burrow_fanout_total /)
  })

  it('labels only the methods MCP defines; made-up ones first do not push them out', async () => {
    const metrics = new CliMetrics()
    metrics.request('default', 'bad"label\nvalue')
    for (let i = 0; i < 100; i++) metrics.request('default', `made/up${i}`)
    metrics.request('default', 'tools/call')
    metrics.request('default', 'GET')
    metrics.fanout('notifications/roots/list_changed')
    metrics.fanout('made/up')
    const text = await metrics.registry.metrics()
    const series = text.split('\n').filter((l) => l.startsWith('burrow_upstream_requests_total{'))
    assert.deepEqual(series.sort(), [
      'burrow_upstream_requests_total{upstream="default",method="GET"} 1',
      'burrow_upstream_requests_total{upstream="default",method="other"} 101',
      'burrow_upstream_requests_total{upstream="default",method="tools/call"} 1',
    ])
    assert.ok(!text.includes('bad'), 'the malformed value is not exposed')
    assert.ok(!text.includes('made/up'))
    assert.match(text, /burrow_fanout_total\{method="notifications\/roots\/list_changed"\} 1/)
    assert.match(text, /burrow_fanout_total\{method="other"\} 1/)
  })

  it('keeps separate registries apart', async () => {
    const a = new CliMetrics()
    const b = new CliMetrics()
    a.unknownPrefix()
    assert.match(await a.registry.metrics(), /burrow_unknown_prefix_errors_total 1/)
    assert.match(await b.registry.metrics(), /burrow_unknown_prefix_errors_total 0/)
  })
})
