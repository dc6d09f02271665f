/**
 * One agent session as the single stdio backend tracks it: beyond what every routed session holds
 * (the server→client requests shown to the agent → the child's id for each), which of the agent's
 * requests are with the child (agent id → child id). The routing itself lives in
 * `stdio-backend.ts`.
 */
import type { JsonRpcId } from '@burrow/protocol'
import type { SessionSink } from './mcp-backend.js'
import { RoutedSession, type SessionRouter } from './routed-session.js'

/** A session of the stdio backend; its asks map to the child's request ids. */
export class StdioSession extends RoutedSession<JsonRpcId> {
  /** Agent request id (`idKey`) → id of the same request at the child. */
  readonly inFlight = new Map<string, number>()
  /** The client capabilities the agent declared in its `initialize`. */
  capabilities: Readonly<Record<string, unknown>> = {}

  constructor(id: string, sink: SessionSink, router: SessionRouter<StdioSession>) {
    super(id, sink, router)
  }
}
