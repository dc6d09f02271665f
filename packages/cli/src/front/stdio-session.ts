/**
 * One agent session as the single stdio backend tracks it: which of the agent's requests are with
 * the child (agent id → child id), and which server→client requests the agent holds (the id the
 * agent sees → the child's id). The routing itself lives in `stdio-backend.ts`.
 */
import type {
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '@burrow/protocol'
import type { BackendSession, SessionSink } from './mcp-backend.js'

/** What a `StdioSession` hands its messages to (the stdio backend). */
export interface StdioRouter {
  request(session: StdioSession, message: JsonRpcRequest, signal: AbortSignal): void
  notify(session: StdioSession, message: JsonRpcNotification): void
  respond(session: StdioSession, message: JsonRpcResponse): void
  close(session: StdioSession): void
}

/** A `BackendSession` of the stdio backend. */
export class StdioSession implements BackendSession {
  readonly id: string
  readonly sink: SessionSink
  /** Agent request id (`idKey`) → id of the same request at the child. */
  readonly inFlight = new Map<string, number>()
  /** Id given to the agent for a server→client request (`idKey`) → the child's id for it. */
  readonly asks = new Map<string, JsonRpcId>()
  /** When the agent last sent something, on the backend's clock of events. */
  lastActive = 0
  closed = false
  readonly #router: StdioRouter
  #askSeq = 0

  constructor(id: string, sink: SessionSink, router: StdioRouter) {
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
