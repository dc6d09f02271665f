/**
 * What the edge notes about one public request while it is answered: the call-history records
 * of its JSON-RPC requests (status, refusal code, time to the response head, outcome, bytes, and
 * unless the tunnel is in zero-knowledge mode the request and its answer, redacted and cut), the
 * session it opens, refreshes, holds in use until it closes, or ends, and the bytes of its response for the bandwidth quota.
 * Records are written once the exchange is over (its answer may stream). Every part is optional
 * (quotas may be off, history unwired), and none of it can delay or fail the answer.
 */
import {
  answerKey,
  refusal,
  type ClassifiedMessage,
  type HeaderPairs,
  type JsonRpcBody,
  type PolicyCode,
} from '@burrow/protocol'
import type { Redactor, StoredRoom } from '../governance/redactor.js'
import type { TunnelGovernance } from '../governance/tunnel-governance.js'
import { newCallId, type CallHistorySink } from '../quota/call-history.js'
import { responseHeadBytes } from './head-bytes.js'
import type { EdgeSessions } from '../quota/edge-sessions.js'
import type { MeteredTunnel, ResponseMeter } from '../quota/quota-gate.js'
import { requestsOf } from './body-facts.js'
import { storableText } from '../store/storable-text.js'
import {
  inputRequiredStateOf,
  type CallContinuations,
  type Continued,
} from './call-continuations.js'

/** Method and tool names are stored in call history at most this long. */
const MAX_NAME_LENGTH = 200
/** Each stored body is cut at this many characters. */
export const MAX_STORED_BODY_CHARS = 64 * 1024

/** What an `ExchangeRecord` is about. */
export interface ExchangeContext {
  readonly tunnel: MeteredTunnel
  /** HTTP method of the request. */
  readonly method: string
  /** The POST body's JSON-RPC messages, or null for GET and DELETE. */
  readonly body: JsonRpcBody | null
  /** The POST body's size in bytes. */
  readonly bodyBytes?: number
  /** The request's `Mcp-Session-Id`, if any. */
  readonly sessionId: string | undefined
  /** The agent the access gate admitted, `<name> (<id>)`; null or absent for none. */
  readonly agent?: string | null
  /** That agent's id (a grant or agent token); null or absent for a public caller. */
  readonly agentId?: string | null
  readonly history: CallHistorySink | null
  readonly sessions: EdgeSessions | null
  /** The tunnel's governance: what to redact, and zero-knowledge mode. */
  readonly governance?: TunnelGovernance | null
  /** Wall-clock arrival, for history. */
  readonly arrivedAt: Date
  /** `performance.now()` at arrival, for the duration. */
  readonly started: number
  /** Where answers asking for input (2026-07-28) leave their `requestState`; null for nowhere. */
  readonly continuations?: CallContinuations | null
  /**
   * The tunnel's governance when the exchange ends: its owner may have turned zero-knowledge
   * mode on, or added a pattern, while the request was in flight. Absent: `governance` stands.
   */
  readonly latestGovernance?: () => TunnelGovernance | undefined | Promise<TunnelGovernance>
}

/** An answer to one request, as seen in the response. */
interface Answer {
  readonly value: Record<string, unknown>
  /** The agent got an error: the answer was one, or the policy withheld it. */
  error: boolean
}

/** Accounting for one request; the edge calls it as the answer takes shape. */
export class ExchangeRecord {
  readonly #ctx: ExchangeContext
  /** The place an `initialize` holds until its answer, if it holds one. */
  #reservation: string | null = null
  #meter: ResponseMeter | null = null
  #recorded = false
  /** Status and time to the head, once answered. */
  #head: { status: number; durationMs: number } | null = null
  /** Answers to the body's requests, by id. */
  #answers: Map<string, Answer> | null = null
  #bytesOut = 0
  /** Response body bytes that came through the tunnel. */
  #bytesIn = 0
  /** Response body bytes given to the meter: the larger of in and out so far. */
  #metered = 0
  /** Some of the answer's messages passed untapped (its copy was too large or over budget). */
  #answerCut = false
  /** Ids given early to calls whose answer asked for input (so a retry can name them). */
  #ids: Map<string, string> | null = null
  /** The call this request continues (a retry with a known `requestState`), or null. */
  #continues: Continued | null = null
  /** Gives back the place a sessionless request holds while in flight. */
  #releaseRequest: (() => void) | null = null
  /** True while this exchange holds its session in use. */
  #holding = false
  /** The session this `initialize` opened, held in use while its answer streams. */
  #opened: string | null = null
  /** The exchange is over: a place taken from now on is given back at once. */
  #over = false

  constructor(ctx: ExchangeContext) {
    this.#ctx = ctx
  }

  /** The `initialize` holds this session place until answered. */
  holdPlace(reservation: string): void {
    this.#reservation = reservation
    // The agent may have hung up while the place was being taken: it goes back at once.
    if (this.#over) this.#releasePlace()
  }

  /** This request continues call `callId` (a 2026-07-28 retry): history links them. */
  continuing(call: Continued): void {
    this.#continues = call
  }

  /** The request holds its session in use (`EdgeSessions.hold`) until the exchange is over. */
  holdSession(): void {
    this.#holding = true
    if (this.#over) this.#letSessionGo()
  }

  /** The request holds a sessionless place until the exchange is over; `release` frees it. */
  holdRequestPlace(release: () => void): void {
    this.#releaseRequest = release
    if (this.#over) this.#releasePlace()
  }

  /** Response bytes go to `meter` (bandwidth quota). */
  meterWith(meter: ResponseMeter): void {
    this.#meter = meter
    // The agent may have hung up while the request was admitted: nothing will stream.
    if (this.#over) meter.finish()
  }

  /** The edge refused the request itself with `status`, `policy` and `reason`. */
  refused(status: number, policy: PolicyCode, reason = ''): void {
    this.#record(status, performance.now() - this.#ctx.started, policy, reason)
    this.#releasePlace()
    this.#letSessionGo()
  }

  /** The upstream's response head arrived. */
  answered(status: number, headers: HeaderPairs): void {
    this.#head = { status, durationMs: performance.now() - this.#ctx.started }
    // The head crosses as the body does (bandwidth quota), though history counts only bodies.
    this.#meter?.add(responseHeadBytes(headers))
    const { sessions, tunnel, sessionId, method } = this.#ctx
    if (sessions === null) return
    if (this.#reservation !== null) {
      this.#opened = sessions.settle(tunnel, this.#reservation, status, headers)
      this.#reservation = null
      if (this.#over) this.#letSessionGo()
    }
    if (sessionId !== undefined) sessions.answered(tunnel, method, sessionId, status, headers)
  }

  /** A JSON-RPC message of the answer (ResponseMessages' tap). */
  answerMessage(m: ClassifiedMessage): void {
    if (m.kind !== 'response' || m.id === null || this.#ctx.body === null) return
    const result = m.value.result as { isError?: unknown } | undefined
    this.#answers ??= new Map()
    // Only answers to this body's requests are kept: at most one per request, the first (an
    // answer repeating an id is no answer; each one's requestState made a free retry).
    if (this.#answers.size >= this.#ctx.body.messages.length) return
    const key = answerKey(m.id)
    if (this.#answers.has(key)) return
    this.#answers.set(key, { value: m.value, error: m.error || result?.isError === true })
    const continuations = this.#ctx.continuations
    const state = continuations ? inputRequiredStateOf(m) : null
    // Only a tool call's state continues a call: a `prompts/get` asking for input is no call.
    const tool = state === null ? null : toolCalledBy(this.#ctx.body, key)
    if (continuations && state !== null && tool !== null) {
      const id = newCallId(this.#ctx.arrivedAt)
      ;(this.#ids ??= new Map()).set(key, id)
      // Every round of the call names its first one.
      const first = this.#continues
      continuations.remember(
        { tunnelId: this.#ctx.tunnel.id, agentId: this.#ctx.agentId ?? null },
        tool,
        state,
        first?.callId ?? id,
        first?.round ?? 0,
      )
    }
  }

  /** The agent got an error in place of answer `m` (the policy withheld it). */
  answerWithheld(m: ClassifiedMessage): void {
    if (m.kind !== 'response' || m.id === null) return
    const answer = this.#answers?.get(answerKey(m.id))
    if (answer !== undefined) answer.error = true
  }

  /** Some of the answer's messages passed to the agent without being tapped. */
  answerCut(): void {
    this.#answerCut = true
  }

  /** Response body bytes passed to the agent (history; the bandwidth quota, see `#metered`). */
  bytes(n: number): void {
    this.#bytesOut += n
    this.#meterUpTo(Math.max(this.#bytesIn, this.#bytesOut))
  }

  /**
   * Response body bytes that came through the tunnel (the bandwidth quota), whatever of them
   * reaches the agent: the events a rewriting policy drops crossed the edge too.
   */
  received(n: number): void {
    this.#bytesIn += n
    this.#meterUpTo(Math.max(this.#bytesIn, this.#bytesOut))
  }

  /**
   * The bandwidth quota counts the larger of what came through the tunnel and what went to the
   * agent: a rewriting policy drops events (fewer out) and redaction masks short matches with
   * longer text (more out), and both crossed the edge.
   */
  #meterUpTo(bytes: number): void {
    if (bytes <= this.#metered) return
    this.#meter?.add(bytes - this.#metered)
    this.#metered = bytes
  }

  /** The exchange is over (answered, failed or abandoned). */
  closed(): void {
    this.#over = true
    if (this.#head !== null) this.#record(this.#head.status, this.#head.durationMs, null, '')
    this.#meter?.finish()
    this.#releasePlace()
    this.#letSessionGo()
  }

  #letSessionGo(): void {
    if (this.#opened !== null) {
      this.#ctx.sessions?.done(this.#ctx.tunnel, this.#opened)
      this.#opened = null
    }
    if (!this.#holding || this.#ctx.sessionId === undefined) return
    this.#holding = false
    this.#ctx.sessions?.done(this.#ctx.tunnel, this.#ctx.sessionId)
  }

  #releasePlace(): void {
    this.#releaseRequest?.()
    this.#releaseRequest = null
    if (this.#reservation === null) return
    this.#ctx.sessions?.release(this.#ctx.tunnel, this.#reservation)
    this.#reservation = null
  }

  /**
   * One history record per JSON-RPC request of the body (notifications are not calls), once,
   * under the tunnel's governance as it was when the request came and as it is now: content is
   * kept only if neither is in zero-knowledge mode, and redacted with the newer's patterns.
   */
  #record(status: number, durationMs: number, policy: PolicyCode | null, reason: string): void {
    const { history, body, latestGovernance } = this.#ctx
    if (this.#recorded || history === null || body === null) return
    this.#recorded = true
    const latest = latestGovernance?.()
    if (latest instanceof Promise) {
      // When the newest policy cannot be read, nothing of the content is kept.
      latest.then(
        (now) => this.#write(status, durationMs, policy, reason, now),
        () => this.#write(status, durationMs, policy, reason, null),
      )
    } else this.#write(status, durationMs, policy, reason, latest)
  }

  #write(
    status: number,
    durationMs: number,
    policy: PolicyCode | null,
    reason: string,
    latest: TunnelGovernance | null | undefined,
  ): void {
    const { history, body, tunnel, arrivedAt, governance } = this.#ctx
    if (history === null || body === null) return
    const requests = requestsOf(body)
    const single = !body.batch && requests.length === 1
    const keep =
      latest !== null &&
      governance?.policy.zeroKnowledge !== true &&
      latest?.policy.zeroKnowledge !== true
    const redactor = (latest ?? governance)?.redactor ?? null
    for (const request of requests) {
      // Names and ids are the agent's text too: redacted like the bodies (in one scan), storable.
      const tool = request.target?.kind === 'tool' ? request.target.name : null
      const sessionId = this.#ctx.sessionId ?? null
      const texts = [request.method, tool, sessionId, request.id]
      // As kept: numbers (a numeric id) are read by the patterns too.
      const room = { chars: MAX_STORED_BODY_CHARS, cut: false }
      const [method, toolName, session, id] = (
        redactor?.active ? redactor.redactValue(texts, 0, room) : texts
      ) as (string | number | null)[]
      const name = (text: string | number | null | undefined) =>
        typeof text === 'string' ? storableText(text, MAX_NAME_LENGTH) : null
      const answer = this.#answers?.get(answerKey(request.id))
      const answerValue =
        policy !== null
          ? (refusal(policy, policy.replace(/_/g, ' '), reason, request.id)
              .body as unknown as Record<string, unknown>)
          : answer?.value
      const stored = keep ? this.#stored(request.value, answerValue, redactor) : null
      history.record({
        id: this.#ids?.get(answerKey(request.id)) ?? newCallId(arrivedAt),
        continues: single ? (this.#continues?.callId ?? null) : null,
        tunnelId: tunnel.id,
        at: arrivedAt,
        method: name(method) ?? '',
        tool: name(toolName),
        status,
        policyCode: policy,
        durationMs,
        sessionId: name(session),
        // JSON text, always valid (`callJson` parses it): a long string id stays a string.
        rpcId: JSON.stringify(typeof id === 'string' ? name(id) : id),
        agent: this.#ctx.agent ? storableText(this.#ctx.agent, MAX_NAME_LENGTH) : null,
        outcome: policy !== null ? 'refused' : this.#outcome(answer, status),
        bytesIn: single ? (this.#ctx.bodyBytes ?? 0) : 0,
        bytesOut: single ? this.#bytesOut : 0,
        requestBody: stored?.request ?? null,
        responseBody: stored?.response ?? null,
        bodiesCut: stored !== null && (stored.cut || (answer === undefined && this.#answerCut)),
      })
    }
  }

  /**
   * Whether a relayed request's answer was an error: from its message, or, when the message
   * passed untapped, from the HTTP status.
   */
  #outcome(answer: Answer | undefined, status: number): 'ok' | 'error' {
    if (answer !== undefined) return answer.error ? 'error' : 'ok'
    return this.#answerCut && status >= 400 ? 'error' : 'ok'
  }

  /** The request and answer as stored: redacted, then cut. */
  #stored(
    request: Record<string, unknown>,
    answer: Record<string, unknown> | undefined,
    redactor: Redactor | null,
  ): { request: string; response: string | null; cut: boolean } {
    // Only what can be kept is scanned: a 4 MiB body costs the redactor what 64 KiB does.
    const room: StoredRoom = { chars: MAX_STORED_BODY_CHARS, cut: false }
    const text = (value: unknown) => {
      room.chars = MAX_STORED_BODY_CHARS
      try {
        return JSON.stringify(redactor ? redactor.redactValue(value, 0, room) : value)
      } catch {
        return '"[not storable]"'
      }
    }
    const req = text(request)
    const res = answer === undefined ? null : text(answer)
    const cut =
      room.cut || req.length > MAX_STORED_BODY_CHARS || (res?.length ?? 0) > MAX_STORED_BODY_CHARS
    return {
      request: req.slice(0, MAX_STORED_BODY_CHARS),
      response: res === null ? null : res.slice(0, MAX_STORED_BODY_CHARS),
      cut,
    }
  }
}

/** The tool the `tools/call` of `body` answered under `key` names, or null for another request. */
function toolCalledBy(body: JsonRpcBody, key: string): string | null {
  for (const m of body.messages) {
    if (m.kind === 'request' && m.id !== null && answerKey(m.id) === key) {
      return m.method === 'tools/call' && m.target?.kind === 'tool' ? m.target.name : null
    }
  }
  return null
}
