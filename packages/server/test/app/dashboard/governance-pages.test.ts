import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { MethodMetrics } from '../../../src/governance/metrics-report.js'
import { callPage, metricsPage } from '../../../src/app/dashboard/governance-pages.js'

const viewer = { email: 'owner@example.com', slug: 'acme', csrfToken: 'csrf' }
const tunnel = {
  id: 'tun_1',
  name: 'files',
  subdomain: 'files',
  publicUrl: 'https://files--acme.example.com',
  online: true,
  serving: true,
  pinned: false,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  lastSeenAt: null,
}

function row(refusals: Record<string, number>, tool = 'read_file'): MethodMetrics {
  return {
    method: 'tools/call',
    tool,
    calls: 3,
    errors: 0,
    refusals,
    p50Ms: 5,
    p95Ms: 10,
    p99Ms: 10,
  }
}

/** The Refusals cell of each row of the Metrics table, its markup. */
function refusalCells(methods: MethodMetrics[]): string[] {
  const shown = String(
    metricsPage(viewer, tunnel, { window: '1h', since: '', span: '5m', methods, series: [] }),
  )
  // The fifth cell of each row: Method, Tool, Calls, Errors, Refusals.
  return [...shown.matchAll(/<tr data-method[\s\S]*?<\/tr>/g)].map(
    (tr) => [...tr[0].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)][4]![1]!,
  )
}

describe('the Metrics table', () => {
  it('shows 0 refusals for a method and tool none were refused, not an empty cell', () => {
    assert.deepEqual(refusalCells([row({})]), ['0'])
    assert.deepEqual(refusalCells([row({ tool_denied: 0 })]), ['0'])
  })

  it('shows each policy code refused with its count', () => {
    const [cell] = refusalCells([row({ tool_denied: 2, rate_limited: 1234 })])
    assert.match(cell!, /<span class="badge stopped">tool_denied 2<\/span>/)
    assert.match(cell!, /<span class="badge stopped">rate_limited 1,234<\/span>/)
    assert.doesNotMatch(cell!, /(^|>)0</)
  })

  it('escapes a code it did not choose', () => {
    const [cell] = refusalCells([row({ '<b>x</b>': 1 })])
    assert.match(cell!, /&lt;b&gt;x&lt;\/b&gt; 1/)
  })
})

describe('callPage: what the agent chose', () => {
  it('hostile: marks a bidi override in the request id and session, each isolated', () => {
    // Found by a hostile review: an id reading "1 · agent Claude Desktop (grant_…)" then U+202E,
    // shown as it came, posed as the agent label that follows it on token and OAuth tunnels.
    const shown = String(
      callPage(viewer, tunnel, {
        id: 'call_1',
        at: '2026-01-01T00:00:00.000Z',
        sessionId: 'sess\u202e1',
        rpcId: '"1 · agent Claude Desktop (grant_8d1f2a) \u202e"',
        agent: 'agt_1',
        method: 'tools/call',
        tool: 'read_file',
        status: 200,
        outcome: 'ok',
        policyCode: null,
        durationMs: 3,
        bytesIn: 10,
        bytesOut: 10,
        requestBody: null,
        responseBody: null,
        bodiesCut: false,
        continues: null,
      }),
    )
    const facts = /<p class="muted" id="call-facts">[\s\S]*?<\/p>/.exec(shown)![0]
    assert.ok(!facts.includes('\u202e'), facts)
    assert.equal(facts.match(/U\+202E/g)?.length, 2)
    assert.equal(facts.match(/<bdi/g)?.length, 3)
  })
})
