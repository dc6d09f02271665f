/**
 * Writes a refusal envelope as an HTTP response (see `refusal` in @burrow/protocol).
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
    id?: JsonRpcId
    jsonRpcCode?: number
    headers?: Record<string, string>
    close?: boolean
  } = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const r = refusal(code, message, reason, opts.id ?? null, opts.jsonRpcCode)
  const body = JSON.stringify(r.body)
  res.writeHead(r.status, {
    ...r.headers,
    'content-length': Buffer.byteLength(body),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'x-burrow-error',
    ...(opts.close ? { connection: 'close' } : {}),
    ...opts.headers,
  })
  res.end(body)
}
