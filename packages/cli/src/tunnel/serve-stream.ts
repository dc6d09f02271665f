/**
 * Serve one tunnel stream with the handler. A request (not an agent's GET stream) counts in each
 * of `counts` (its connection's and the client's) from its OPEN, before its body is complete,
 * until its answer went to the tunnel: a drain that closed the connection between the two would
 * lose it.
 */
import type { Logger, MuxStream, RequestHead } from '@burrow/protocol'
import type { RequestHandler } from '../relay/local-exchange.js'
import type { InFlight } from './in-flight.js'
import { streamExchange } from './stream-exchange.js'

export function serveStream(
  stream: MuxStream,
  head: RequestHead,
  body: Uint8Array | undefined,
  fin: boolean,
  handler: Pick<RequestHandler, 'handle'>,
  log: Logger,
  counts: readonly InFlight[],
): void {
  const ends = head.method === 'GET' ? [] : counts.map((count) => count.begin())
  const ended = () => {
    for (const end of ends) end()
  }
  // Reset (or its connection lost) before the body is complete: the handler never runs. Once it
  // runs, its request takes this over, and a reset aborts the request, which ends the handler.
  if (ends.length > 0) stream.onReset = ended
  streamExchange(stream, head, body, fin, (req, res, sent) => {
    handler
      .handle(req, res)
      .then(sent)
      .then(ended, (err: Error) => {
        log.error(`request handler failed: ${err.stack ?? err.message}`)
        ended()
      })
  })
}
