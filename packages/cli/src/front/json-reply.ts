/**
 * Plain answers of the front that no backend produced: refusals of a request before its messages
 * are routed (each carrying the refused request's id when there is one), results the front
 * computes itself (`server/discover`), and the 202 of a POST without requests.
 */
import {
  errorResponse,
  JSONRPC_CODE,
  stringifyWithLargeIds,
  type JsonRpcId,
  type RefusedId,
} from '@burrow/protocol'
import type { HttpProblem } from './http-checks.js'
import type { LocalResponse } from '../relay/local-exchange.js'

/**
 * Write `body` as the whole `application/json` response (a refused id too large for a number as
 * the digits it was sent with).
 */
export function replyJson(
  res: LocalResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const bytes = new TextEncoder().encode(stringifyWithLargeIds(body))
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

/**
 * Refuse a request with `problem`'s status, as a JSON-RPC error answering `id`; for the ids of a
 * refused batch (`refusalIds`), an array with one error per request, as JSON-RPC answers a batch.
 */
export function replyProblem(
  res: LocalResponse,
  problem: HttpProblem,
  code: number = JSONRPC_CODE.serverError,
  headers: Readonly<Record<string, string>> = {},
  id: RefusedId | readonly RefusedId[] = null,
): void {
  const error = (one: RefusedId) => ({
    jsonrpc: '2.0',
    id: one,
    error: { code, message: problem.message },
  })
  const body = Array.isArray(id) ? (id as readonly RefusedId[]).map(error) : error(id as RefusedId)
  replyJson(res, problem.status, body, headers)
}

/** Accept a POST that carried no request. */
export function reply202(res: LocalResponse): void {
  res.writeHead(202, {})
  res.end()
}
