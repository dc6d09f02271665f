/**
 * What the inspector's list shows of a JSON-RPC body: the method (or methods, for a batch), the
 * tool name of a `tools/call`, the request id, and whether an answer carries an error. Bodies are
 * untrusted, so everything is read defensively and anything unexpected yields nulls.
 */

/** The list columns of a request body. */
export interface RequestSummary {
  /** `tools/call`, `initialize`…; a batch is `first (+N)`; null when the body is not JSON-RPC. */
  readonly rpcMethod: string | null
  /** `params.name` of a `tools/call` (of the first one, in a batch). */
  readonly toolName: string | null
  /** The request id (of the first message, in a batch), or null for a notification. */
  readonly rpcId: string | number | null
}

const NONE: RequestSummary = { rpcMethod: null, toolName: null, rpcId: null }

/** Summarise a request body (bytes as received). Never throws. */
export function summarizeRequest(body: Uint8Array): RequestSummary {
  if (body.length === 0) return NONE
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'))
  } catch {
    return NONE
  }
  const messages = Array.isArray(value) ? value : [value]
  const first = messages.find(isRecord)
  if (!first) return NONE
  const method = typeof first.method === 'string' ? first.method : null
  const params = isRecord(first.params) ? first.params : null
  const toolName =
    method === 'tools/call' && params && typeof params.name === 'string' ? params.name : null
  const id = typeof first.id === 'string' || typeof first.id === 'number' ? first.id : null
  const more = messages.length > 1 ? ` (+${messages.length - 1})` : ''
  return { rpcMethod: method === null ? null : method + more, toolName, rpcId: id }
}

/**
 * True when a JSON-RPC answer reports a failure: a JSON-RPC `error`, or a tool result with
 * `isError: true` (MCP's way of saying a tool ran and failed). Accepts batches.
 */
export function isErrorAnswer(message: unknown): boolean {
  if (Array.isArray(message)) return message.some(isErrorAnswer)
  if (!isRecord(message)) return false
  if ('error' in message && message.error !== undefined) return true
  return isRecord(message.result) && message.result.isError === true
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
