/**
 * Writes a refusal envelope as an HTTP response (see `refusal` in @burrow/protocol). A refused
 * JSON-RPC batch is answered as JSON-RPC answers a batch: an array with one envelope per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  ERROR_HEADER,
  POLICY_STATUS,
  refusalJson,
  type PolicyCode,
  type RefusedId,
} from '@burrow/protocol'

/** Answer with the envelope for `code`; `close` also ends the connection (e.g. after a 413). */
export function sendRefusal(
  res: ServerResponse,
  code: PolicyCode,
  message: string,
  reason: string,
  opts: {
    /** The refused request's id, or the ids of a refused batch's requests. */
    id?: RefusedId | readonly RefusedId[]
    jsonRpcCode?: number
    headers?: Record<string, string>
    close?: boolean
    /**
     * A request whose body is still arriving (and being discarded): the answer is written at once
     * but ended only once that body has ended, so that the connection stays open while the
     * sender, still writing, reads the answer. Ending it sooner would let Node close a
     * `Connection: close` connection under the sender, who would see a reset instead.
     */
    endAfter?: IncomingMessage
  } = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = refusalJson(code, message, reason, opts.id ?? null, opts.jsonRpcCode)
  // Set apart from writeHead's so that it can be read back (burrowd's metrics count refusals).
  res.setHeader(ERROR_HEADER, code)
  res.writeHead(POLICY_STATUS[code], {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'x-burrow-error, retry-after',
    // An envelope is data, never a page: not sniffed, and sandboxed if a browser opens it.
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
    ...(opts.close ? { connection: 'close' } : {}),
    ...opts.headers,
  })
  const reading = opts.endAfter
  if (!reading || reading.complete || reading.destroyed) {
    res.end(body)
    return
  }
  res.write(body)
  const end = () => {
    reading.off('end', end)
    reading.off('close', end)
    if (!res.writableEnded) res.end()
  }
  reading.once('end', end)
  reading.once('close', end)
}
