/**
 * The plan's admission of one request about to be forwarded: the session cap (an `initialize`
 * takes a place until answered, a request of a session holds it in use while in flight, a
 * 2026-07-28 request holds a place of its own while in flight) and the monthly
 * quotas (tool calls and bandwidth). A refused request is answered with the envelope and counted
 * nowhere; an admitted one is counted (in force at once) and forwarded.
 */
import { POLICY_STATUS, type JsonRpcBody, type PolicyCode } from '@burrow/protocol'
import type { EdgeSessions } from '../quota/edge-sessions.js'
import { SESSION_LIMIT_MESSAGE } from '../quota/edge-sessions.js'
import type { QuotaGate } from '../quota/quota-gate.js'
import { QUOTA_MESSAGE, RESPONSE_CUT_REASON } from '../quota/quota-refusal.js'
import type { TunnelWithAccount } from '../store/store.js'
import { isInitialize, isSessionless, toolCallCount } from './body-facts.js'
import { countsAsCall, retryStateOf, type CallContinuations } from './call-continuations.js'
import type { ExchangeRecord } from './exchange-record.js'

/** Answer the request being handled with a refusal (and record it). */
export type Refuse = (
  code: PolicyCode,
  message: string,
  reason: string,
  headers?: Record<string, string>,
) => void

/** What admission consults; null where the plan's rules are off (`BURROW_QUOTAS=off`). */
export interface AdmissionRules {
  readonly sessions: EdgeSessions | null
  readonly quotas: QuotaGate | null
  readonly continuations: CallContinuations
}

/** One request to admit. */
export interface AdmissionRequest {
  readonly tunnel: TunnelWithAccount
  /** The request's HTTP method. */
  readonly method: string
  readonly rpc: JsonRpcBody | null
  /** Bytes of the request's head and body (bandwidth quota). */
  readonly requestBytes: number
  readonly sessionId: string | undefined
  /** The agent the access gate admitted; null or absent for a public caller. */
  readonly agentId?: string | null
  readonly record: ExchangeRecord
  /** Ends the response, when the tunnel's month goes too far past its bandwidth limit. */
  readonly cut?: () => void
}

/**
 * Apply the session cap and the quotas to `request`: false when it was refused (and answered
 * through `refuse`), else true (counted, when quotas are on).
 */
export async function admitRequest(
  rules: AdmissionRules,
  request: AdmissionRequest,
  refuse: Refuse,
): Promise<boolean> {
  const { sessions, quotas, continuations } = rules
  const { tunnel, rpc, requestBytes, sessionId, record, cut } = request
  const caller = { tunnelId: tunnel.id, agentId: request.agentId ?? null }
  // An initialize opens a new session whatever Mcp-Session-Id it carries: it takes a place.
  if (sessions !== null && isInitialize(rpc)) {
    const place = await sessions.reserve(tunnel)
    if (!place.ok) {
      refuse('session_limit', SESSION_LIMIT_MESSAGE, place.reason)
      return false
    }
    record.holdPlace(place.reservation)
  } else if (sessions !== null && isSessionless(rpc)) {
    // A 2026-07-28 request has no session: it holds a place while it is in flight.
    const place = await sessions.holdRequest(tunnel)
    if (!place.ok) {
      refuse('session_limit', SESSION_LIMIT_MESSAGE, place.reason)
      return false
    }
    record.holdRequestPlace(place.release)
  } else if (sessions !== null && sessionId !== undefined && request.method !== 'DELETE') {
    // A request of a session holds it in use; one that lost its place while idle takes one back.
    const held = await sessions.hold(tunnel, sessionId)
    if (!held.ok) {
      refuse('session_limit', SESSION_LIMIT_MESSAGE, held.reason)
      return false
    }
    record.holdSession()
  }
  // A retry carrying a requestState the edge handed out to this agent continues its call:
  // counted once, for its first rounds.
  const retry = retryStateOf(rpc)
  const continues = retry === null ? null : continuations.take(caller, retry.tool, retry.state)
  if (continues !== null) record.continuing(continues)
  if (quotas !== null) {
    const { refusal } = await quotas.admit(
      tunnel,
      toolCallCount(rpc) - (continues === null || countsAsCall(continues) ? 0 : 1),
      requestBytes,
    )
    if (refusal !== null) {
      // The retry never reached the server: the agent's next retry continues the call still.
      if (retry !== null && continues !== null)
        continuations.giveBack(caller, retry.tool, retry.state, continues)
      refuse('quota_exceeded', QUOTA_MESSAGE, refusal.reason, {
        'retry-after': String(refusal.retryAfterSecs),
      })
      return false
    }
    // History shows a cut response as refused for the quota, not as the 200 it began as.
    const cutAndNote =
      cut &&
      (() => {
        record.refused(POLICY_STATUS.quota_exceeded, 'quota_exceeded', RESPONSE_CUT_REASON)
        cut()
      })
    record.meterWith(quotas.responseMeter(tunnel, cutAndNote))
  }
  if (sessions !== null && sessionId !== undefined && request.method === 'DELETE')
    sessions.touch(tunnel, sessionId)
  return true
}
