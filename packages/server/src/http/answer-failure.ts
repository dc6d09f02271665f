/**
 * A handler failed: the caller gets an answer in its own shape (the edge's envelope on a tunnel's
 * host, the API's error object under `/api/`, a plain page elsewhere), and the stack goes to the
 * log only. A failure of what burrowd depends on, Redis or PostgreSQL not answering in time, is
 * `503` with `Retry-After`, saying which: trying again shortly is what the caller should do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { RefusedId } from '@burrow/protocol'
import { refusedIdsOf } from '../edge/request-ids.js'
import { isTunnelRequest } from '../edge/tunnel-requests.js'
import type { FailureLog } from '../observability/failure-log.js'
import { DATABASE_RETRY_AFTER_S, isDatabaseStalled } from '../store/database-stalled.js'
import {
  isSharedStateUnavailable,
  SHARED_STATE_RETRY_AFTER_S,
} from '../store/shared-state-unavailable.js'
import { HttpError } from './http-error.js'
import { idsOfUnreadBody } from './ids-of-unread-body.js'
import { sendApiError } from './responses.js'
import { sendRefusal } from './send-refusal.js'

/**
 * Answer `req`, whose handler failed with `err`; `onTunnel` when it came to a tunnel's host (or
 * it was routed to a tunnel otherwise, by a custom domain: edge/tunnel-requests.ts).
 */
export function answerFailure(
  failures: FailureLog,
  req: IncomingMessage,
  res: ServerResponse,
  err: Error,
  onTunnelHost: boolean,
): void {
  const onTunnel = onTunnelHost || isTunnelRequest(req)
  failures.failed(err)
  if (res.headersSent) {
    res.destroy()
    return
  }
  // The refused request's ids, when its body was read: the agent's SDK can match the error.
  const id = refusedIdsOf(req)
  const database = isDatabaseStalled(err)
  if (database || isSharedStateUnavailable(err)) {
    const seconds = database ? DATABASE_RETRY_AFTER_S : SHARED_STATE_RETRY_AFTER_S
    const headers = { 'retry-after': String(seconds) }
    const reason = database
      ? `burrowd's database did not answer in time or could not be reached; try again in ${seconds} s`
      : `burrowd cannot reach the state its nodes share (Redis)${onTunnel ? ' to route and count this call' : ''}; ` +
        `try again in ${seconds} s`
    if (onTunnel) {
      refuse(req, id, (ids, endAfter) =>
        sendRefusal(res, 'tunnel_offline', 'service unavailable', reason, {
          id: ids,
          headers,
          endAfter,
        }),
      )
    } else if ((req.url ?? '').startsWith('/api/')) {
      sendApiError(res, new HttpError(503, 'unavailable', reason), headers)
    } else {
      res.writeHead(503, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        ...headers,
      })
      res.end(`Service unavailable: ${reason}.\n`)
    }
    return
  }
  const reason = 'burrowd failed to handle the request; it was logged'
  if (onTunnel) {
    refuse(req, id, (ids, endAfter) =>
      sendRefusal(res, 'tunnel_offline', 'internal error', reason, { id: ids, endAfter }),
    )
  } else if ((req.url ?? '').startsWith('/api/')) {
    sendApiError(res, new HttpError(500, 'internal', reason))
  } else {
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.end(`Internal error: ${reason}.\n`)
  }
}

/**
 * Refuse `req` with `id`, the ids its body gave when the edge read it; when it failed before
 * reading it (waiting on a stalled database, say), with the ids read from it now.
 */
function refuse(
  req: IncomingMessage,
  id: RefusedId | RefusedId[],
  send: (id: RefusedId | RefusedId[], endAfter?: IncomingMessage) => void,
): void {
  if (id !== null) return send(id)
  idsOfUnreadBody(
    req,
    (ids) => send(ids, req),
    () => req.socket.destroy(),
  )
}
