/**
 * The JSON shapes of the governance API (docs/api.md): policies, calls and metrics, snake_case
 * as every other API answer.
 */
import { isBodyProblem, parseJsonRpcText } from '@burrow/protocol'
import type { CallView } from '../../governance/call-log.js'
import type { MetricsReport } from '../../governance/metrics-report.js'
import type { PolicyView } from '../../governance/policies.js'

/** `GET /api/tunnels/:id/policy`. */
export function policyJson(tunnelId: string, view: PolicyView): Record<string, unknown> {
  return {
    tunnel_id: tunnelId,
    version: view.version,
    updated_at: view.updatedAt,
    updated_by: view.updatedBy,
    policy: view.document,
  }
}

/** One call of `GET /api/tunnels/:id/calls`. */
export function callJson(c: CallView): Record<string, unknown> {
  return {
    id: c.id,
    at: c.at,
    session_id: c.sessionId,
    agent: c.agent,
    rpc_id: c.rpcId === null ? null : storedId(c.rpcId),
    method: c.method,
    tool: c.tool,
    status: c.status,
    outcome: c.outcome,
    policy_code: c.policyCode,
    duration_ms: c.durationMs,
    bytes_in: c.bytesIn,
    bytes_out: c.bytesOut,
    request: c.requestBody === null ? null : parsedOrText(c.requestBody),
    response: c.responseBody === null ? null : parsedOrText(c.responseBody),
    bodies_cut: c.bodiesCut,
    continues: c.continues,
  }
}

/** `GET /api/tunnels/:id/metrics`. */
export function metricsJson(report: MetricsReport): Record<string, unknown> {
  return {
    window: report.window,
    since: report.since,
    period: report.span,
    methods: report.methods.map((m) => ({
      method: m.method,
      tool: m.tool,
      calls: m.calls,
      errors: m.errors,
      refusals: m.refusals,
      p50_ms: m.p50Ms,
      p95_ms: m.p95Ms,
      p99_ms: m.p99Ms,
    })),
    series: report.series,
  }
}

/** A stored message as the JSON it was, or its text when it was cut (no longer JSON). */
/** A stored request id: JSON text, or (cut by an older burrowd) text that no longer parses. */
function storedId(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

function parsedOrText(text: string): unknown {
  const body = parseJsonRpcText(text)
  return isBodyProblem(body) || body.batch ? text : body.messages[0]!.value
}
