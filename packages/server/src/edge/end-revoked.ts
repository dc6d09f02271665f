/**
 * How the edge ends a request whose access was taken away while it was in flight (an agent token
 * revoked, a grant disconnected, the tunnel's mode or allowlist changed, its route gone): one not
 * answered yet gets the refusal envelope with its ids (`access_denied`), so that the agent's SDK
 * fails that call with a reason rather than a reset, and the connection closes after it so that
 * nothing more of the request goes on; one already answering (a stream) ends short. A body still
 * arriving is read on first, under the body budgets it was being read under, for the refusal to
 * carry its ids; one that passes them is let go at once and refused without ids (`id: null`),
 * the rest read and discarded before the connection closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { refusalIdsOf as idsInBody, type RefusedId } from '@burrow/protocol'
import { ANSWERED_WHILE_READING, type AnswerOnceRead } from '../http/read-body.js'
import { sendRefusal } from '../http/send-refusal.js'
import { refusedIdsOf } from './request-ids.js'

/** Requests whose refusal waits for the rest of their body (ended once: a second end waits too). */
const waiting = new WeakSet<IncomingMessage>()

/** End `req`'s exchange: its access was taken away. */
export function endRevoked(req: IncomingMessage, res: ServerResponse): void {
  if (waiting.has(req)) return
  if (res.headersSent || res.writableEnded) {
    res.destroy()
    return
  }
  if (req.listenerCount(ANSWERED_WHILE_READING) === 0) {
    // Its body was read (or it has none): the ids were noted when it was.
    refuse(req, res, refusedIdsOf(req))
    return
  }
  // Its body is being read: the refusal goes once it is (or once it passed a bound).
  waiting.add(req)
  const answer: AnswerOnceRead = (body) => {
    waiting.delete(req)
    if (res.destroyed || res.headersSent || res.writableEnded) return
    refuse(req, res, body === null ? null : idsInBody(body))
  }
  req.emit(ANSWERED_WHILE_READING, answer)
}

function refuse(req: IncomingMessage, res: ServerResponse, id: RefusedId | RefusedId[]): void {
  sendRefusal(
    res,
    'access_denied',
    'access revoked',
    "the tunnel's access changed while the request was in flight: it is no longer allowed",
    // A body still arriving (past a bound) is read on and discarded: the refusal ends, and the
    // connection closes, only after it, so that the agent, still writing, reads the refusal
    // instead of a reset (as for the 429 of body budgets).
    { id, close: true, endAfter: req },
  )
  res.once('finish', () => res.destroy())
}
