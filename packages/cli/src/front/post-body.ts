/**
 * Reads the body of a POST to the MCP endpoint: JSON, then one JSON-RPC message or a batch of
 * them. Problems come back as the JSON-RPC code and message the front answers with (HTTP 400):
 * -32700 for bytes that are not JSON, -32600 for JSON that is not valid JSON-RPC.
 */
import {
  idKey,
  isRequest,
  JsonRpcErrorCode,
  parseJsonRpcMessage,
  type JsonRpcMessage,
} from './json-rpc.js'

/** A POST body read as JSON-RPC. */
export interface PostBody {
  /** The body was a JSON array (a 2025-03-26 batch). */
  readonly batch: boolean
  readonly messages: readonly JsonRpcMessage[]
}

/** Why a body was refused. */
export interface BodyProblem {
  readonly code: number
  readonly message: string
}

/** The MCP SDK server's cap on batch size. */
const MAX_BATCH = 100

/** Parse and validate a POST body. */
export function readPostBody(body: Uint8Array): PostBody | BodyProblem {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body))
  } catch {
    return { code: JsonRpcErrorCode.parseError, message: 'Parse error: the body is not valid JSON' }
  }
  const batch = Array.isArray(value)
  const items: readonly unknown[] = Array.isArray(value) ? (value as unknown[]) : [value]
  const invalid = (why: string): BodyProblem => ({
    code: JsonRpcErrorCode.invalidRequest,
    message: `Invalid Request: ${why}`,
  })
  if (items.length === 0) return invalid('an empty batch')
  if (items.length > MAX_BATCH) return invalid(`a batch holds at most ${MAX_BATCH} messages`)
  const messages: JsonRpcMessage[] = []
  const ids = new Set<string>()
  for (const item of items) {
    const message = parseJsonRpcMessage(item)
    if (typeof message === 'string') return invalid(message)
    if (isRequest(message)) {
      if (ids.has(idKey(message.id))) return invalid('a batch repeats a request id')
      ids.add(idKey(message.id))
    }
    messages.push(message)
  }
  return { batch, messages }
}
