/**
 * The message pipe between the aggregator and one upstream MCP server, whatever carries it: a
 * supervised stdio child (`stdio-channel.ts`) or a Streamable HTTP connection (`http-channel.ts`).
 * A channel moves JSON-RPC messages and reports when the other end appears or goes away; the MCP
 * session on top of it (initialize, ids, routing) is `upstream-link.ts`.
 */
import type { JsonRpcId, JsonRpcMessage } from '@burrow/protocol'

/** What a channel reports to its link. */
export interface ChannelEvents {
  /** The other end can take a fresh `initialize` now (a child started; an HTTP server to try). */
  open(): void
  /**
   * A valid JSON-RPC message arrived; `stream` is the id of the request on whose response it
   * came (an HTTP POST's SSE stream), when the channel knows it.
   */
  message(message: JsonRpcMessage, stream?: JsonRpcId): void
  /** The connection is gone (the child exited, the server is unreachable or forgot the session). */
  lost(reason: string): void
  /** Bytes of messages received (`in`) or sent (`out`), when the channel was asked to count them. */
  bytes(direction: 'in' | 'out', n: number): void
}

/** A message pipe to one upstream. */
export interface UpstreamChannel {
  /**
   * True when a failed `initialize` may be retried on a timer. False while the channel itself
   * will report `open` again (a stdio child that is restarting).
   */
  readonly canRetry: boolean
  /** Start connecting; events follow. Called once. */
  start(events: ChannelEvents): void
  /**
   * Deliver one message. Sending an `initialize` request starts a new session. Rejects with an
   * Error saying why when the message could not be delivered; a request that was delivered is
   * always answered through `message` (with an error response when the channel cannot tell more).
   */
  send(message: JsonRpcMessage): Promise<void>
  /** Stop for good: end the session, the child or the connections. */
  close(): Promise<void>
}
