/**
 * What burrowd answers on its port between binding it and serving: the port is bound early (the
 * services need to know it), and the services are wired after it, which with several nodes waits
 * for the cluster events' subscription (up to 5 s when Redis does not answer,
 * cluster/subscribed-within.ts). Meanwhile every request gets `503` with `Retry-After`: the
 * refusal envelope on `/mcp` (a tunnel host's or a custom domain's, which are not known yet), the
 * API's error on `/api/`, text elsewhere; and every upgrade (a tunnel client) the envelope. Before,
 * such a request got no answer at all and waited until its client gave up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { rejectUpgrade } from '../broker/reject-upgrade.js'
import { HttpError } from './http-error.js'
import { sendApiError } from './responses.js'
import { sendRefusal } from './send-refusal.js'

/** Seconds a client is told to wait before it asks a starting burrowd again. */
export const STARTING_RETRY_AFTER_S = 1

const REASON = `burrowd is starting; try again in ${STARTING_RETRY_AFTER_S} s`
const RETRY = { 'retry-after': String(STARTING_RETRY_AFTER_S) }

/** Answer `req` while burrowd starts. */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?', 1)[0]!
  // The connection closes after it: the next request opens one to a node that serves.
  res.shouldKeepAlive = false
  if (path === '/mcp') {
    sendRefusal(res, 'tunnel_offline', 'service starting', REASON, {
      headers: RETRY,
      close: true,
      endAfter: req,
    })
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

/** Refuse an upgrade (a tunnel client connecting) while burrowd starts. */
export function refuseStartingUpgrade(socket: Duplex): void {
  rejectUpgrade(socket, 'tunnel_offline', REASON, 'service starting', RETRY)
}
