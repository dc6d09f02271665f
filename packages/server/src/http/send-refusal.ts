/**
 * Writes a refusal envelope as an HTTP response (see `refusal` in @burrow/protocol). A refused
 * JSON-RPC batch is answered as JSON-RPC answers a batch: an array with one envelope per request.
 */
import type { ServerResponse } from 'node:http'
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
    ...(opts.close ? { connection: 'close' } : {}),
    ...opts.headers,
  })
  res.end(body)
}
