/**
 * The contract between the MCP front (HTTP, sessions, SSE: `mcp-front.ts`) and whatever routes the
 * messages behind it. The front knows nothing of children or upstreams; a backend knows nothing of
 * HTTP. The single stdio backend (`stdio-backend.ts`) is one implementation, the aggregator
 * (`../aggregator/aggregator-backend.ts`) the other.
 */
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '@burrow/protocol'

/** Where a backend sends what is meant for one agent session. Implemented by the front. */
export interface SessionSink {
  /**
   * Deliver a message to the agent. A response is matched to the agent's request by its id. Other
   * messages name in `relatedTo` the agent request they belong to (a progress notification, a
   * sampling request raised while serving it) and then travel on that request's stream; without
   * it, or once that request is answered, they go to the session's standalone GET stream.
   */
  deliver(message: JsonRpcMessage, relatedTo?: JsonRpcId): void
  /**
   * The backend lost the session (for instance the stdio server restarted). The front answers the
   * session's open requests with an error built from `reason` and forgets the session, so the
   * agent's next request gets 404 and it initializes again, as the MCP spec requires.
   */
  end(reason: string): void
  /**
   * Sessions whose sinks share an ask group are taken as one agent's when a server's question
   * does not say which call it is for: it is placed among their calls by recency, where calls of
   * two groups make it unplaceable. Unset, a session is a group of its own (a 2025 session is one
   * agent's). The seats of 2026-07-28 exchanges (`modern-seat.ts`) set it from the agent the
   * edge admitted them as (`Burrow-Agent`); sessionless agents without one share a group.
   */
  readonly askGroup?: string
}

/** The ask group of `session` (see `SessionSink.askGroup`). */
export function askGroup<T extends { readonly sink: SessionSink }>(session: T): T | string {
  return session.sink.askGroup ?? session
}

/** One agent session as the backend sees it. */
export interface BackendSession {
  /**
   * An agent request (initialize included). The answer must come back through the sink, exactly
   * once. `signal` aborts when the agent hangs up before the answer.
   */
  request(message: JsonRpcRequest, signal: AbortSignal): void
  /** An agent notification (`initialized`, `cancelled`, `progress`, `roots/list_changed`…). */
  notify(message: JsonRpcNotification): void
  /** The agent's answer to a request the backend delivered (sampling, elicitation, roots). */
  respond(message: JsonRpcResponse): void
  /** The session ended on the agent's side (DELETE) or the front is closing. */
  close(): void
}

/** Routes the messages of every agent session. */
export interface McpBackend {
  /** A new agent session; its `initialize` request follows through `request`. */
  openSession(sessionId: string, sink: SessionSink): BackendSession
  /** Stop, releasing children and connections. */
  close(): Promise<void>
  /** Optional: as `RequestHandler.started`, for what the backend runs. */
  started?(): Promise<void>
  /** Optional: as `RequestHandler.failure`, for what the backend runs. */
  failure?(): Promise<Error>
  /**
   * Optional: why the backend takes no request now because its server does not read what waits
   * for it, or undefined. The front answers such requests 503 with their id.
   */
  backlog?(): string | undefined
}
