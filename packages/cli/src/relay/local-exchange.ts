/**
 * The shape of one public request as the CLI sees it after it crossed the tunnel, and of the
 * response it writes back. Every local handler (the HTTP relay, the stdio/aggregator MCP front)
 * implements `RequestHandler` over these, so none of them knows about frames or sockets.
 */

/** A request that came through the tunnel. The body is complete (the edge bounds its size). */
export interface LocalRequest {
  /** HTTP method: POST, GET or DELETE. */
  readonly method: string
  /** Path and query as the agent sent them, e.g. `/mcp` or `/mcp?x=1`. */
  readonly path: string
  /** Request headers with lower-case names. Hop-by-hop headers, Host and Origin are already gone. */
  readonly headers: Readonly<Record<string, string>>
  /** The complete request body (empty for GET and DELETE). */
  readonly body: Uint8Array
  /** Aborted when the agent hangs up or the tunnel resets the stream. */
  readonly signal: AbortSignal
  /**
   * Optional and cheaper than `signal` on a hot path: `listener` runs once when the request is
   * aborted (at once if it already was). A request that offers it creates its signal only when
   * `signal` is read, so a handler that uses this instead skips an AbortController per call.
   */
  onAbort?(listener: (reason: Error) => void): void
}

/**
 * Response headers by lower-case name. A header sent several times (`set-cookie`) is a list, each
 * value sent as its own field: cookies cannot be joined with commas.
 */
export type ResponseHeaders = Readonly<Record<string, string | readonly string[]>>

/** Where a handler writes its response. Writes after the agent hung up are ignored. */
export interface LocalResponse {
  /** Send status and headers. Must be called once, before any write. */
  writeHead(status: number, headers: ResponseHeaders): void
  /** Send a body chunk; false means "buffer full, wait for onDrain before writing more". */
  write(chunk: Uint8Array): boolean
  /** End the body. */
  end(): void
  /** Call `cb` once when a write that returned false has been flushed. */
  onDrain(cb: () => void): void
  /** True once the stream is finished or reset. */
  readonly closed: boolean
  /** Abort a response that already started (the upstream failed midway); the agent sees a reset. */
  destroy?(reason: string): void
}

/** Anything that answers tunnelled requests. */
export interface RequestHandler {
  handle(req: LocalRequest, res: LocalResponse): Promise<void>
  /** Stop: release children and sockets. */
  close(): Promise<void>
  /**
   * Optional: resolves once the local server this handler starts is running (a stdio child has
   * spawned); rejects when it can never run (its command does not exist).
   */
  started?(): Promise<void>
  /** Optional: resolves with the reason once the local server is known never to run. */
  failure?(): Promise<Error>
}
