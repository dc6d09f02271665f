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
import { refusalIdsOf, type RefusedId } from '@burrow/protocol'
import { rejectUpgrade } from '../broker/reject-upgrade.js'
import { HttpError } from './http-error.js'
import { sendApiError } from './responses.js'
import { sendRefusal } from './send-refusal.js'

/** Seconds a client is told to wait before it asks a starting burrowd again. */
export const STARTING_RETRY_AFTER_S = 1

const REASON = `burrowd is starting; try again in ${STARTING_RETRY_AFTER_S} s`
const RETRY = { 'retry-after': String(STARTING_RETRY_AFTER_S) }

/** The most of a `/mcp` body read for the ids its envelope answers; past it, the id is null. */
export const STARTING_BODY_READ_BYTES = 64 * 1024

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
 * The envelope for a `/mcp` request, with the refused id(s) when its body is at most
 * `STARTING_BODY_READ_BYTES`; a larger body is read and thrown away, the envelope ended once it
 * has arrived (ending sooner would reset the connection under an agent still sending).
 */
function refuseMcp(req: IncomingMessage, res: ServerResponse, readBody: boolean): void {
  let answered = false
  const send = (id: RefusedId | RefusedId[]) => {
    if (answered) return
    answered = true
    sendRefusal(res, 'tunnel_offline', 'service starting', REASON, {
      id,
      headers: RETRY,
      close: true,
      endAfter: readBody ? req : undefined,
    })
  }
  if (!readBody) {
    send(null)
    req.resume()
    return
  }
  const chunks: Buffer[] = []
  let size = 0
  req.on('data', (chunk: Buffer) => {
    if (answered) return
    size += chunk.length
    if (size > STARTING_BODY_READ_BYTES) {
      chunks.length = 0
      send(null)
    } else {
      chunks.push(chunk)
    }
  })
  req.once('end', () => send(refusalIdsOf(Buffer.concat(chunks))))
  req.once('error', () => res.destroy())
}

/** Refuse an upgrade (a tunnel client connecting) while burrowd starts. */
export function refuseStartingUpgrade(socket: Duplex): void {
  rejectUpgrade(socket, 'tunnel_offline', REASON, 'service starting', RETRY)
}
