/**
 * What the inspector's list shows of a JSON-RPC body: the method (or methods, for a batch), the
 * tool name of a `tools/call`, the request id, and whether an answer carries an error. Request
 * bodies are read with the shared reader (`readJsonRpcBody`); anything it cannot read yields nulls.
 * The agent chooses these strings, so each is cut to `MAX_SUMMARY_CHARS` (an agent could name a
 * tool with 4 MiB of text, and every summary goes to each open inspector tab).
 */
import { isBodyProblem, isRecord, LargeNumberId, readJsonRpcBody } from '@burrow/protocol'
import { cutText } from '../cut-text.js'

/** Method names, tool names and string ids are kept at most this long (and `…`), as in burrowd. */
export const MAX_SUMMARY_CHARS = 200

/** The list columns of a request body. */
export interface RequestSummary {
  /** `tools/call`, `initialize`…; a batch is `first (+N)`; null when the body is not JSON-RPC. */
  readonly rpcMethod: string | null
  /** The tool a valid `tools/call` names (the first message's, in a batch). */
  readonly toolName: string | null
  /** The request id (of the first message, in a batch), or null for a notification. */
  readonly rpcId: string | number | null
}

const NONE: RequestSummary = { rpcMethod: null, toolName: null, rpcId: null }

/** Summarise a request body (bytes as received). Never throws. */
export function summarizeRequest(body: Uint8Array): RequestSummary {
  if (body.length === 0) return NONE
  const read = readJsonRpcBody(body)
  if (isBodyProblem(read)) return NONE
  const first = read.messages.find((m) => isRecord(m.value))
  if (!first) return NONE
  const method = first.kind === 'response' ? null : first.method
  const target = first.kind === 'request' || first.kind === 'notification' ? first.target : null
  const tool = method === 'tools/call' && target?.kind === 'tool' ? target.name : null
  const id = first.kind === 'notification' ? null : first.id
  // A refused id too large for a number is shown as the digits it was sent with.
  const rawId = id instanceof LargeNumberId ? id.text : id
  const more = read.messages.length > 1 ? ` (+${read.messages.length - 1})` : ''
  return {
    rpcMethod: method === null ? null : cut(method) + more,
    toolName: tool === null ? null : cut(tool),
    rpcId: typeof rawId === 'string' ? cut(rawId) : rawId,
  }
}

function cut(text: string): string {
  return cutText(text, MAX_SUMMARY_CHARS)
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
