/**
 * Writes a refusal envelope as an HTTP response (see `refusal` in @burrow/protocol). A refused
 * JSON-RPC batch is answered as JSON-RPC answers a batch: an array with one envelope per request.
 */
import type { ServerResponse } from 'node:http'
import { refusal, type JsonRpcId, type PolicyCode } from '@burrow/protocol'

/** Answer with the envelope for `code`; `close` also ends the connection (e.g. after a 413). */
export function sendRefusal(
  res: ServerResponse,
  code: PolicyCode,
  message: string,
  reason: string,
  opts: {
    /** The refused request's id, or the ids of a refused batch's requests. */
    id?: JsonRpcId | readonly JsonRpcId[]
    jsonRpcCode?: number
    headers?: Record<string, string>
    close?: boolean
  } = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const ids = opts.id ?? null
  const one = (id: JsonRpcId) => refusal(code, message, reason, id, opts.jsonRpcCode)
  const r = one(Array.isArray(ids) ? null : (ids as JsonRpcId))
  const body = JSON.stringify(
    Array.isArray(ids) ? ids.map((id: JsonRpcId) => one(id).body) : r.body,
  )
  res.writeHead(r.status, {
    ...r.headers,
    'content-length': Buffer.byteLength(body),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'x-burrow-error, retry-after',
    ...(opts.close ? { connection: 'close' } : {}),
    ...opts.headers,
  })
  res.end(body)
}
