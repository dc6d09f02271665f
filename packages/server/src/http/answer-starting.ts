/**
 * What burrowd answers on its port between binding it and serving: the port is bound early (the
 * services need to know it), and the services are wired after it, which with several nodes waits
 * for the cluster events' subscription (up to 5 s when Redis does not answer,
 * cluster/subscribed-within.ts). Meanwhile every request gets `503` with `Retry-After`: the
 * refusal envelope on `/mcp` (a tunnel host's or a custom domain's, which are not known yet), the
 * API's error on `/api/`, text elsewhere; every upgrade (a tunnel client) the envelope; and a
 * request Node cannot parse the envelope too (answer-client-error.ts, attached first). Before,
 * such a request got no answer at all and waited until its client gave up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { RefusedId } from '@burrow/protocol'
import { rejectUpgrade } from '../broker/reject-upgrade.js'
import { HttpError } from './http-error.js'
import { idsOfUnreadBody } from './ids-of-unread-body.js'
import { sendApiError } from './responses.js'
import { sendRefusal } from './send-refusal.js'

/** Seconds a client is told to wait before it asks a starting burrowd again. */
export const STARTING_RETRY_AFTER_S = 1

const REASON = `burrowd is starting; try again in ${STARTING_RETRY_AFTER_S} s`
const RETRY = { 'retry-after': String(STARTING_RETRY_AFTER_S) }

/** Answer `req` while burrowd starts. */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  answer(req, res, true)
}

/**
 * Answer a request with an `Expect` other than `100-continue` while burrowd starts (Node would
 * answer it with a bare 417): its body may never come, so it is not waited for.
 */
export function answerStartingExpectation(req: IncomingMessage, res: ServerResponse): void {
  answer(req, res, false)
}

function answer(req: IncomingMessage, res: ServerResponse, readBody: boolean): void {
  const path = (req.url ?? '').split('?', 1)[0]!
  // The connection closes after it: the next request opens one to a node that serves.
  res.shouldKeepAlive = false
  if (path === '/mcp') {
    refuseMcp(req, res, readBody)
  } else if (path.startsWith('/api/')) {
    sendApiError(res, new HttpError(503, 'starting', REASON), RETRY)
  } else {
    res.writeHead(503, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      ...RETRY,
    })
    res.end(`${REASON}.\n`)
  }
}

/**
 * The envelope for a `/mcp` request, with the refused id(s) read from its body when it is not
 * larger than `REFUSAL_BODY_READ_BYTES` (ids-of-unread-body.ts); with an unknown `Expect`, whose
 * body may never come, at once and without.
 */
function refuseMcp(req: IncomingMessage, res: ServerResponse, readBody: boolean): void {
  const send = (id: RefusedId | RefusedId[]) =>
    sendRefusal(res, 'tunnel_offline', 'service starting', REASON, {
      id,
      headers: RETRY,
      close: true,
      endAfter: readBody ? req : undefined,
    })
  if (!readBody) {
    send(null)
    req.resume()
    return
  }
  idsOfUnreadBody(req, send, () => res.destroy())
}

/** Refuse an upgrade (a tunnel client connecting) while burrowd starts. */
export function refuseStartingUpgrade(socket: Duplex): void {
  rejectUpgrade(socket, 'tunnel_offline', REASON, 'service starting', RETRY)
}
