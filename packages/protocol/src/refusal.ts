/**
 * The one envelope every refusal uses (ARCHITECTURE §3): an HTTP status, header
 * `x-burrow-error: <policy_code>`, and a JSON-RPC error carrying the refused request's id.
 */

/** Policy codes and the HTTP status each one is sent with. */
export const POLICY_STATUS = {
  quota_exceeded: 429,
  session_limit: 429,
  rate_limited: 429,
  tool_denied: 403,
  plan_limit: 402,
  tunnel_offline: 503,
  tunnel_not_found: 404,
  upstream_unreachable: 502,
  payload_too_large: 413,
  parse_error: 400,
  invalid_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  unauthorized: 401,
} as const

/** A policy code. */
export type PolicyCode = keyof typeof POLICY_STATUS

/** Header naming the policy that refused a request. */
export const ERROR_HEADER = 'x-burrow-error'

/** JSON-RPC error codes used in envelopes. */
export const JSONRPC_CODE = {
  /** Refused by a Burrow policy. */
  refused: -32000,
  parseError: -32700,
  invalidRequest: -32600,
} as const

/** A JSON-RPC id as it may appear in a refused request. */
export type JsonRpcId = string | number | null

/** The JSON-RPC body of a refusal. */
export interface RefusalBody {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId
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
  id: JsonRpcId = null,
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
