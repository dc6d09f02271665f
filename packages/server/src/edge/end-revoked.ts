/**
 * How the edge ends a request whose access was taken away while it was in flight (an agent token
 * revoked, a grant disconnected, the tunnel's mode or allowlist changed, its route gone): one not
 * answered yet gets the refusal envelope with its ids (`access_denied`), so that the agent's SDK
 * fails that call with a reason rather than a reset, and the connection closes after it so that
 * nothing more of the request goes on (after the rest of a body still arriving, read and
 * discarded); one already answering (a stream) ends short.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ANSWERED_WHILE_READING } from '../http/read-body.js'
import { sendRefusal } from '../http/send-refusal.js'
import { refusedIdsOf } from './request-ids.js'

/** End `req`'s exchange: its access was taken away. */
export function endRevoked(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) {
    res.destroy()
    return
  }
  sendRefusal(
    res,
    'access_denied',
    'access revoked',
    "the tunnel's access changed while the request was in flight: it is no longer allowed",
    // A body still arriving is read on and discarded, what was read of it let go at once: the
    // refusal ends, and the connection closes, only after it, so that the agent, still writing,
    // reads the refusal instead of a reset (as for the 429 of body budgets).
    { id: refusedIdsOf(req), close: true, endAfter: req },
  )
  req.emit(ANSWERED_WHILE_READING)
  res.once('finish', () => res.destroy())
}
