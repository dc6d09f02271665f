/**
 * What the edge notes about one public request while it is answered: the call-history records
 * of its JSON-RPC requests (status, refusal code, time to the response head), the session it
 * opens, refreshes or ends, and the bytes of its response for the bandwidth quota. Every part
 * is optional (quotas may be off, history unwired), and none of it can delay or fail the answer.
 */
import type { HeaderPairs, JsonRpcBody, PolicyCode } from '@burrow/protocol'
import type { CallHistorySink } from '../quota/call-history.js'
import type { MeteredTunnel, ResponseMeter } from '../quota/quota-gate.js'
import type { EdgeSessions } from '../quota/edge-sessions.js'
import { requestsOf } from './body-facts.js'

/** Method and tool names are stored in call history at most this long. */
const MAX_NAME_LENGTH = 200

/** What an `ExchangeRecord` is about. */
export interface ExchangeContext {
  readonly tunnel: MeteredTunnel
  /** HTTP method of the request. */
  readonly method: string
  /** The POST body's JSON-RPC messages, or null for GET and DELETE. */
  readonly body: JsonRpcBody | null
  /** The request's `Mcp-Session-Id`, if any. */
  readonly sessionId: string | undefined
  readonly history: CallHistorySink | null
  readonly sessions: EdgeSessions | null
  /** Wall-clock arrival, for history. */
  readonly arrivedAt: Date
  /** `performance.now()` at arrival, for the duration. */
  readonly started: number
}

/** Accounting for one request; the edge calls it as the answer takes shape. */
export class ExchangeRecord {
  readonly #ctx: ExchangeContext
  /** The place an `initialize` holds until its answer, if it holds one. */
  #reservation: string | null = null
  #meter: ResponseMeter | null = null
  #recorded = false

  constructor(ctx: ExchangeContext) {
    this.#ctx = ctx
  }

  /** The `initialize` holds this session place until answered. */
  holdPlace(reservation: string): void {
    this.#reservation = reservation
  }

  /** Response bytes go to `meter` (bandwidth quota). */
  meterWith(meter: ResponseMeter): void {
    this.#meter = meter
  }

  /** The edge refused the request itself with `status` and `policy`. */
  refused(status: number, policy: PolicyCode): void {
    this.#record(status, policy)
    this.#releasePlace()
  }

  /** The upstream's response head arrived. */
  answered(status: number, headers: HeaderPairs): void {
    this.#record(status, null)
    const { sessions, tunnel, sessionId, method } = this.#ctx
    if (sessions === null) return
    if (this.#reservation !== null) {
      sessions.settle(tunnel, this.#reservation, status, headers)
      this.#reservation = null
    }
    if (sessionId !== undefined) sessions.answered(tunnel, method, sessionId, status)
  }

  /** Response body bytes passed to the agent. */
  bytes(n: number): void {
    this.#meter?.add(n)
  }

  /** The exchange is over (answered, failed or abandoned). */
  closed(): void {
    this.#meter?.finish()
    this.#releasePlace()
  }

  #releasePlace(): void {
    if (this.#reservation === null) return
    this.#ctx.sessions?.release(this.#ctx.tunnel, this.#reservation)
    this.#reservation = null
  }

  /** One history record per JSON-RPC request of the body (notifications are not calls), once. */
  #record(status: number, policy: PolicyCode | null): void {
    const { history, body, tunnel, arrivedAt, started } = this.#ctx
    if (this.#recorded || history === null || body === null) return
    this.#recorded = true
    const durationMs = performance.now() - started
    for (const request of requestsOf(body)) {
      history.record({
        tunnelId: tunnel.id,
        at: arrivedAt,
        method: request.method.slice(0, MAX_NAME_LENGTH),
        tool:
          request.target?.kind === 'tool' ? request.target.name.slice(0, MAX_NAME_LENGTH) : null,
        status,
        policyCode: policy,
        durationMs,
      })
    }
  }
}
