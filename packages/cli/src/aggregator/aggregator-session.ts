/**
 * One agent session as the aggregator tracks it: its requests being served (each with a
 * controller that cancels it upstream), the server→client requests it holds (the id the agent
 * sees → upstream and the upstream's id), and when it was last active. The routing lives in
 * `aggregator-backend.ts`.
 */
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '@burrow/protocol'
import type { BackendSession, SessionSink } from '../front/mcp-backend.js'

/** What an `AggregatorSession` hands its messages to (the aggregator backend). */
export interface AggregatorSessionRouter {
  request(session: AggregatorSession, message: JsonRpcRequest, signal: AbortSignal): void
  notify(session: AggregatorSession, message: JsonRpcNotification): void
  respond(session: AggregatorSession, message: JsonRpcResponse): void
  close(session: AggregatorSession): void
}

/** A server→client request an agent holds. */
export interface HeldAsk {
  readonly upstream: string
  /** The upstream's own id for it. */
  readonly upstreamId: JsonRpcId
}

/** A `BackendSession` of the aggregator. */
export class AggregatorSession implements BackendSession {
  readonly id: string
  readonly sink: SessionSink
  /** Agent requests being served (`idKey`) → cancels the request upstream. */
  readonly calls = new Map<string, AbortController>()
  /** Ids given to the agent for server→client requests (`idKey`) → where they came from. */
  readonly asks = new Map<string, HeldAsk>()
  /** When the agent last sent something, on the backend's clock of events. */
  lastActive = 0
  /** The capabilities the agent declared in its initialize (`sampling`, `roots`…). */
  capabilities: Readonly<Record<string, unknown>> = {}
  closed = false
  readonly #router: AggregatorSessionRouter
  #askSeq = 0

  constructor(id: string, sink: SessionSink, router: AggregatorSessionRouter) {
    this.id = id
    this.sink = sink
    this.#router = router
  }

  /** A fresh id for a server→client request shown to this agent. */
  nextAskId(): number {
    this.#askSeq += 1
    return this.#askSeq
  }

  request(message: JsonRpcRequest, signal: AbortSignal): void {
    this.#router.request(this, message, signal)
  }

  notify(message: JsonRpcNotification): void {
    this.#router.notify(this, message)
  }

  respond(message: JsonRpcResponse): void {
    this.#router.respond(this, message)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.#router.close(this)
  }
}
