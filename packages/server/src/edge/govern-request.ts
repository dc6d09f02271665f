/**
 * The tunnel's policy as the edge applies it to one request: a call to a denied tool is refused
 * (`tool_denied`, 403), requests over a rate limit too (`rate_limited`, 429 with Retry-After);
 * and the answer's messages are tapped for call history, and rewritten when the policy asks
 * (denied tools removed from `tools/list`, secrets masked when redaction is `forwarded`).
 */
import {
  idKey,
  ResponseMessages,
  type ClassifiedMessage,
  type JsonRpcBody,
  type PolicyCode,
  type ResponseKind,
} from '@burrow/protocol'
import type { CallRateLimits } from '../governance/call-rate-limits.js'
import { filterToolsList } from '../governance/filter-tools-list.js'
import { RateLimitRules } from '../governance/rate-limit-demands.js'
import type { TunnelGovernance } from '../governance/tunnel-governance.js'
import type { ExchangeRecord } from './exchange-record.js'

/** A refusal the policy asks for. */
export interface PolicyRefusal {
  readonly code: PolicyCode
  readonly message: string
  readonly reason: string
  readonly headers?: Record<string, string>
}

/** Why `rpc` may not be forwarded under `governance`, or null. Rate-limit tokens are taken. */
export async function governRequest(
  governance: TunnelGovernance,
  limits: CallRateLimits | null,
  rpc: JsonRpcBody | null,
): Promise<PolicyRefusal | null> {
  if (rpc === null) return null
  const denied = governance.deniedCall(rpc.messages)
  if (denied !== null) {
    return { code: 'tool_denied', message: 'tool not allowed', reason: denied.reason }
  }
  if (limits === null) return null
  const demands = governance.rates.demands(governance.tunnelId, rpc.messages)
  if (demands.length === 0) return null
  const outcome = await limits.admit(demands)
  if (outcome.ok) return null
  return {
    code: 'rate_limited',
    message: 'rate limited',
    reason: RateLimitRules.reason(demands, outcome.index, outcome.retryAfterSecs),
    headers: { 'retry-after': String(outcome.retryAfterSecs) },
  }
}

/**
 * How the edge shapes the answer to `rpc` (null for GET and DELETE): a `ResponseMessages` per
 * answer that taps every message for `record`, and rewrites when the policy asks.
 */
export function answerShaper(
  governance: TunnelGovernance | null,
  rpc: JsonRpcBody | null,
  record: ExchangeRecord,
): ((kind: ResponseKind) => ResponseMessages | null) | null {
  const rewrite = governance ? rewriter(governance, rpc) : null
  if (rpc === null && rewrite === null) return null
  return (kind) =>
    kind === 'other'
      ? null
      : new ResponseMessages({ kind, rewrite, onMessage: (m) => record.answerMessage(m) })
}

function rewriter(
  governance: TunnelGovernance,
  rpc: JsonRpcBody | null,
): ((m: ClassifiedMessage) => Record<string, unknown> | null) | null {
  if (!governance.rewritesAnswers(rpc?.messages ?? [])) return null
  const lists = new Set<string>()
  for (const m of rpc?.messages ?? []) {
    if (m.kind === 'request' && m.method === 'tools/list') lists.add(idKey(m.id))
  }
  const redactor = governance.policy.redaction.forwarded ? governance.redactor : null
  return (m) => {
    let value: Record<string, unknown> = m.value as Record<string, unknown>
    let changed = false
    if (m.kind === 'response' && m.id !== null && lists.has(idKey(m.id))) {
      const filtered = filterToolsList(value, (name) => governance.tools.allows(name))
      if (filtered.removed.length > 0) {
        value = filtered.response
        changed = true
      }
    }
    if (redactor !== null) {
      const before = redactor.masked
      const masked = redactor.redactValue(value) as Record<string, unknown>
      if (redactor.masked !== before) {
        value = masked
        changed = true
      }
    }
    return changed ? value : null
  }
}
