/**
 * One agent session as a backend tracks it (the single stdio backend, the aggregator): it hands
 * what the agent sends to its backend's router, holds the server→client requests shown to the
 * agent, and knows when the agent was last active and whether the session is over. The backends'
 * sessions extend it with what only they track.
 */
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '@burrow/protocol'
import type { BackendSession, SessionSink } from './mcp-backend.js'

/**
 * Where a session's messages go: its backend. Written with method syntax on purpose, so a
 * backend's router may take its own kind of session (`SessionRouter<StdioSession>`) where a
 * `RoutedSession` is asked for: only sessions of that kind are ever given that router.
 */
export interface SessionRouter<S> {
  request(session: S, message: JsonRpcRequest, signal: AbortSignal): void
  notify(session: S, message: JsonRpcNotification): void
  respond(session: S, message: JsonRpcResponse): void
  /** The session ended on the agent's side or the front is closing; called once. */
  close(session: S): void
}

/**
 * Server→client requests one agent may hold unanswered: a server that asks faster than the agent
 * answers (or an agent that never does) would otherwise grow what the backend keeps of them.
 */
export const MAX_HELD_ASKS = 1_000

/** A `BackendSession` that routes; `Ask` is what its backend keeps of each server→client request. */
export class RoutedSession<Ask> implements BackendSession {
  readonly id: string
  readonly sink: SessionSink
  /** Id given to the agent for a server→client request (`idKey`) → what the backend keeps of it. */
  readonly asks = new Map<string, Ask>()
  /** When the agent last sent something, on the backend's clock of events. */
  lastActive = 0
  closed = false
  readonly #router: SessionRouter<RoutedSession<Ask>>
  #askSeq = 0

  constructor(id: string, sink: SessionSink, router: SessionRouter<RoutedSession<Ask>>) {
    this.id = id
    this.sink = sink
    this.#router = router
  }

  /** A fresh id for a server→client request shown to this agent. */
  nextAskId(): number {
    this.#askSeq += 1
    return this.#askSeq
  }

  /** Why no further server→client request may be shown to this agent now, or null. */
  askRefusal(): string | null {
    if (this.asks.size < MAX_HELD_ASKS) return null
    return `the client has ${this.asks.size} requests of the server still unanswered; it was not sent another`
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
