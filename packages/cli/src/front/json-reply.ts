/**
 * Plain answers of the front that no backend produced: refusals of a request before its messages
 * are routed (each carrying the refused request's id when there is one), results the front
 * computes itself (`server/discover`), and the 202 of a POST without requests.
 */
import {
  errorResponse,
  JSONRPC_CODE,
  stringifyWithLargeIds,
  type JsonRpcBody,
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
 * The id a refusal of `body` answers: its message's when it is one request, or one that is not
 * valid JSON-RPC but has an id; else null.
 */
export function refusedId(body: JsonRpcBody): RefusedId {
  const only = body.batch ? undefined : body.messages[0]
  return only?.kind === 'request' || only?.kind === 'invalid' ? only.id : null
}

/** Refuse a request with `problem`'s status, as a JSON-RPC error answering `id`. */
export function replyProblem(
  res: LocalResponse,
  problem: HttpProblem,
  code: number = JSONRPC_CODE.serverError,
  headers: Readonly<Record<string, string>> = {},
  id: RefusedId = null,
): void {
  const body = { jsonrpc: '2.0', id, error: { code, message: problem.message } }
  replyJson(res, problem.status, body, headers)
}

/** Accept a POST that carried no request. */
export function reply202(res: LocalResponse): void {
  res.writeHead(202, {})
  res.end()
}
