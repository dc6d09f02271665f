/**
 * JSON-RPC 2.0 as MCP uses it: the four message shapes, one validator for untrusted values (agent
 * bodies, child output, upstream answers), and small helpers. Messages are kept as the objects
 * they arrived as, so fields this file does not know about (`_meta`, future additions) pass
 * through untouched.
 */
import { isLargeNumberId, LARGE_ID_PROBLEM } from './large-number-id.js'

/** A request or response id. JSON-RPC allows null only in error responses to unreadable input. */
export type JsonRpcId = string | number

/** A call that expects an answer. */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>>
}

/** A one-way message. */
export interface JsonRpcNotification {
  readonly jsonrpc: '2.0'
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>>
}

/** A successful answer. */
export interface JsonRpcResult {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId
  readonly result: Readonly<Record<string, unknown>>
}

/** A failed answer; `id` is null when the request could not be read. */
export interface JsonRpcError {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId | null
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/** Either kind of answer. */
export type JsonRpcResponse = JsonRpcResult | JsonRpcError

/** Any JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

/** The validated message, or a sentence saying what is wrong with `value`. */
export function parseJsonRpcMessage(value: unknown): JsonRpcMessage | string {
  if (!isRecord(value)) return 'a JSON-RPC message must be an object'
  const m = value
  if (m.jsonrpc !== '2.0') return 'the "jsonrpc" member must be "2.0"'
  if ('method' in m) {
    if (typeof m.method !== 'string') return 'the "method" member must be a string'
    if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) {
      return 'the "params" member must be an object'
    }
    if (!('id' in m)) return m as unknown as JsonRpcNotification
    if (isLargeNumberId(m.id)) return LARGE_ID_PROBLEM
    return isJsonRpcId(m.id)
      ? (m as unknown as JsonRpcRequest)
      : 'a request id must be a string or number'
  }
  if ('result' in m === 'error' in m) return 'a response must have exactly one of result and error'
  if (isLargeNumberId(m.id)) return LARGE_ID_PROBLEM
  if ('result' in m) {
    if (!isJsonRpcId(m.id)) return 'a response id must be a string or number'
    if (typeof m.result !== 'object' || m.result === null) return 'a result must be an object'
    return m as unknown as JsonRpcResult
  }
  const e = m.error as Record<string, unknown> | null
  if (m.id !== null && !isJsonRpcId(m.id)) return 'a response id must be a string, number or null'
  if (typeof e !== 'object' || e === null || typeof e.code !== 'number') {
    return 'an error must be an object with a numeric code'
  }
  return typeof e.message === 'string'
    ? (m as unknown as JsonRpcError)
    : 'an error must have a string message'
}

/** True for a request (method and id). */
export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return 'method' in m && 'id' in m
}

/** True for a notification (method, no id). */
export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return 'method' in m && !('id' in m)
}

/** True for a result or error response. */
export function isResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return !('method' in m)
}

/** An error response. */
export function errorResponse(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcError {
  const error = data === undefined ? { code, message } : { code, message, data }
  return { jsonrpc: '2.0', id, error }
}

/** A map key for an id. `1` and `"1"` are different ids, so the type is part of the key. */
export function idKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`
}

/**
 * The key an answer is matched to its request by, as agents' SDKs match them: by `Number(id)`,
 * so `"1"`, `" 1"` and `"1e0"` answer request 1; ids that are not numbers by themselves. An
 * intermediary that reads answers must match them this way, or a server could slip an answer
 * past it by spelling the id differently.
 */
export function answerKey(id: JsonRpcId): string {
  const n = typeof id === 'number' ? id : Number(id)
  return Number.isFinite(n) ? `n:${n}` : idKey(id)
}

/**
 * True for a value JSON-RPC accepts as a request id: a string, or a number that every JSON reader
 * holds exactly (see large-number-id.ts).
 */
export function isJsonRpcId(id: unknown): id is JsonRpcId {
  return (
    typeof id === 'string' ||
    (typeof id === 'number' && Number.isFinite(id) && !isLargeNumberId(id))
  )
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
