/**
 * Plain JSON answers of the front that no backend produced: refusals of a POST before its messages
 * are routed, and results the front computes itself (`server/discover`).
 */
import { errorResponse, type JsonRpcId } from '@burrow/protocol'
import type { LocalResponse } from '../relay/local-exchange.js'

/** Write `body` as the whole `application/json` response. */
export function replyJson(
  res: LocalResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const bytes = new TextEncoder().encode(JSON.stringify(body))
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(bytes.length),
  })
  res.write(bytes)
  res.end()
}

/** A JSON-RPC error answer to request `id` (null when it could not be read). */
export function replyError(
  res: LocalResponse,
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): void {
  replyJson(res, status, errorResponse(id, code, message, data))
}
