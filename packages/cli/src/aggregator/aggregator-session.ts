/**
 * One agent session as the aggregator tracks it: beyond what every routed session holds (the
 * server→client requests shown to the agent → upstream and the upstream's id), its requests being
 * served, each with a controller that cancels it upstream, and the capabilities the agent
 * declared. The routing lives in `aggregator-backend.ts`.
 */
import type { JsonRpcId } from '@burrow/protocol'
import type { SessionSink } from '../front/mcp-backend.js'
import { RoutedSession, type SessionRouter } from '../front/routed-session.js'

/** A server→client request an agent holds. */
export interface HeldAsk {
  readonly upstream: string
  /** The upstream's own id for it. */
  readonly upstreamId: JsonRpcId
}

/** A session of the aggregator. */
export class AggregatorSession extends RoutedSession<HeldAsk> {
  /** Agent requests being served (`idKey`) → cancels the request upstream. */
  readonly calls = new Map<string, AbortController>()
  /** The capabilities the agent declared in its initialize (`sampling`, `roots`…). */
  capabilities: Readonly<Record<string, unknown>> = {}

  constructor(id: string, sink: SessionSink, router: SessionRouter<AggregatorSession>) {
    super(id, sink, router)
  }
}
