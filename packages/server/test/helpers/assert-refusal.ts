/**
 * Checks a response is the one refusal envelope burrowd uses everywhere (docs/security.md#limits):
 * the HTTP status of the policy, `x-burrow-error: <policy_code>`, and a JSON-RPC error body
 * `{jsonrpc, id, error: {code, message, data: {policy_code, reason, http_status}}}`.
 */
import assert from 'node:assert/strict'
import type { IncomingHttpHeaders } from 'node:http'
import { ERROR_HEADER, JSONRPC_CODE, POLICY_STATUS, type PolicyCode } from '@burrow/protocol'

/** What the refusal must say. */
export interface ExpectedRefusal {
  readonly policy: PolicyCode
  /** The refused request's JSON-RPC id (null when there was none). */
  readonly id?: string | number | null
  /** The JSON-RPC error code (default -32000). */
  readonly jsonRpcCode?: number
  /** A pattern the reason must match. */
  readonly reason?: RegExp
}

/** The parsed envelope, for further checks. */
export interface RefusalEnvelope {
  readonly jsonrpc: string
  readonly id: unknown
  readonly error: {
    readonly code: number
    readonly message: string
    readonly data: {
      readonly policy_code: string
      readonly reason: string
      readonly http_status: number
    }
  }
}

/** Assert `res` is the refusal `expected`; returns the parsed body. */
export function assertRefusal(
  res: { readonly status: number; readonly headers: IncomingHttpHeaders; readonly text: string },
  expected: ExpectedRefusal,
): RefusalEnvelope {
  const status = POLICY_STATUS[expected.policy]
  assert.equal(res.status, status, `expected HTTP ${status}; body: ${res.text}`)
  assert.equal(res.headers[ERROR_HEADER], expected.policy)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  const body = JSON.parse(res.text) as RefusalEnvelope
  assert.deepEqual(Object.keys(body).sort(), ['error', 'id', 'jsonrpc'])
  assert.equal(body.jsonrpc, '2.0')
  assert.equal(body.id, expected.id ?? null)
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'data', 'message'])
  assert.equal(body.error.code, expected.jsonRpcCode ?? JSONRPC_CODE.refused)
  assert.equal(typeof body.error.message, 'string')
  assert.ok(body.error.message.length > 0, 'the message is empty')
  assert.deepEqual(Object.keys(body.error.data).sort(), ['http_status', 'policy_code', 'reason'])
  assert.equal(body.error.data.policy_code, expected.policy)
  assert.equal(body.error.data.http_status, status)
  assert.equal(typeof body.error.data.reason, 'string')
  assert.ok(body.error.data.reason.length > 0, 'the reason is empty')
  if (expected.reason) assert.match(body.error.data.reason, expected.reason)
  return body
}
