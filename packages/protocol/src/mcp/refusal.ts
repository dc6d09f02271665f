/**
 * The one envelope every refusal uses (docs/architecture.md): an HTTP status, header
 * `x-burrow-error: <policy_code>`, and a JSON-RPC error carrying the refused request's id.
 */
import { JSONRPC_CODE } from './json-rpc-codes.js'
import type { JsonRpcId } from './json-rpc.js'
import { LargeNumberId, stringifyWithLargeIds } from './large-number-id.js'

/** Policy codes and the HTTP status each one is sent with. */
export const POLICY_STATUS = {
  quota_exceeded: 429,
  session_limit: 429,
  rate_limited: 429,
  tool_denied: 403,
  tool_held: 403,
  plan_limit: 402,
  tunnel_offline: 503,
  tunnel_not_found: 404,
  upstream_unreachable: 502,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  parse_error: 400,
  invalid_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  unauthorized: 401,
  access_denied: 403,
} as const

/** A policy code. */
export type PolicyCode = keyof typeof POLICY_STATUS

/** Header naming the policy that refused a request. */
export const ERROR_HEADER = 'x-burrow-error'

/**
 * The id a refusal answers: the refused request's (as the digits it was sent with when it was a
 * number too large to hold), or null when it had none that could be read.
 */
export type RefusedId = JsonRpcId | LargeNumberId | null

/** The JSON-RPC body of a refusal. */
export interface RefusalBody {
  readonly jsonrpc: '2.0'
  readonly id: RefusedId
  readonly error: {
    readonly code: number
    readonly message: string
    readonly data: {
      readonly policy_code: PolicyCode
      readonly reason: string
      readonly http_status: number
    }
  }
}

/** A complete refusal: status, headers and body, ready to send. */
export interface Refusal {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: RefusalBody
}

/** Build the refusal for `code`. `message` is the short summary, `reason` the detail. */
export function refusal(
  code: PolicyCode,
  message: string,
  reason: string,
  id: RefusedId = null,
  jsonRpcCode: number = JSONRPC_CODE.refused,
): Refusal {
  const status = POLICY_STATUS[code]
  return {
    status,
    headers: { 'content-type': 'application/json', [ERROR_HEADER]: code },
    body: {
      jsonrpc: '2.0',
      id,
      error: {
        code: jsonRpcCode,
        message,
        data: { policy_code: code, reason, http_status: status },
      },
    },
  }
}

/**
 * The JSON text of a refusal answering `ids`: one envelope for a single id, an array with one
 * envelope per id for a refused batch (as JSON-RPC answers a batch).
 */
export function refusalJson(
  code: PolicyCode,
  message: string,
  reason: string,
  ids: RefusedId | readonly RefusedId[],
  jsonRpcCode: number = JSONRPC_CODE.refused,
): string {
  const body = Array.isArray(ids)
    ? (ids as readonly RefusedId[]).map(
        (id) => refusal(code, message, reason, id, jsonRpcCode).body,
      )
    : refusal(code, message, reason, ids as RefusedId, jsonRpcCode).body
  const large = Array.isArray(ids)
    ? ids.some((id) => id instanceof LargeNumberId)
    : ids instanceof LargeNumberId
  return large ? stringifyWithLargeIds(body) : JSON.stringify(body)
}
