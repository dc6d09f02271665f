/**
 * What the edge reads of a POST body (ARCHITECTURE §3): whether it is a JSON-RPC message or a
 * batch, and of each request or notification its method, its id and, for `tools/call`, the
 * tool's name. That is all quotas, sessions and call history need; the body itself is forwarded
 * untouched. Client responses (to the server's own requests) carry no method and are skipped.
 */
import { JSONRPC_CODE, type JsonRpcId } from '@burrow/protocol'

/** One request (with `id`) or notification (without) of the body. */
export interface RpcRequest {
  readonly method: string
  /** The id; undefined for a notification. */
  readonly id: JsonRpcId | undefined
  /** For `tools/call`, `params.name` when it is a string, else null. */
  readonly tool: string | null
}

/** The requests of one POST body. */
export interface RpcMessages {
  /** The body was a JSON array (a JSON-RPC batch). */
  readonly batch: boolean
  /** Of a single message (a request, or a response the agent sends back), its id; else null. */
  readonly id: JsonRpcId
  readonly requests: readonly RpcRequest[]
}

/** Why a body is not JSON-RPC: the JSON-RPC error code and what to tell the agent. */
export interface RpcProblem {
  readonly code: number
  readonly message: string
  readonly reason: string
}

/** Method and tool names are stored in call history at most this long. */
const MAX_NAME_LENGTH = 200

/** Read `body`: its requests, or the problem that makes it unreadable. */
export function readRpcMessages(body: Buffer): RpcMessages | RpcProblem {
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch (err) {
    return {
      code: JSONRPC_CODE.parseError,
      message: 'Parse error',
      reason: `the request body is not valid JSON: ${(err as Error).message}`,
    }
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      return {
        code: JSONRPC_CODE.invalidRequest,
        message: 'Invalid Request',
        reason: 'a JSON-RPC batch must contain at least one message',
      }
    }
    const requests: RpcRequest[] = []
    for (const item of value) {
      const request = asRequest(item)
      if (request) requests.push(request)
    }
    return { batch: true, id: null, requests }
  }
  if (typeof value !== 'object' || value === null) {
    return {
      code: JSONRPC_CODE.invalidRequest,
      message: 'Invalid Request',
      reason: 'a JSON-RPC message must be an object',
    }
  }
  const request = asRequest(value)
  return { batch: false, id: idOf(value) ?? null, requests: request ? [request] : [] }
}

/** True when `read` is a problem rather than messages. */
export function isRpcProblem(read: RpcMessages | RpcProblem): read is RpcProblem {
  return 'code' in read
}

/** The number of `tools/call` requests and notifications in `messages`. */
export function toolCallCount(messages: RpcMessages | null): number {
  let count = 0
  for (const r of messages?.requests ?? []) if (r.method === 'tools/call') count++
  return count
}

/** True for a single `initialize` request: the start of a new MCP session. */
export function isInitialize(messages: RpcMessages | null): boolean {
  return messages !== null && !messages.batch && messages.requests[0]?.method === 'initialize'
}

/** The ids to answer a refusal with: the single id, or one per request of a batch. */
export function refusalIds(messages: RpcMessages | null): JsonRpcId | JsonRpcId[] {
  if (messages === null) return null
  if (!messages.batch) return messages.id
  const ids: JsonRpcId[] = []
  for (const r of messages.requests) if (r.id !== undefined) ids.push(r.id)
  // A batch of notifications only still gets one envelope: the agent must learn why.
  return ids.length > 0 ? ids : null
}

function asRequest(item: unknown): RpcRequest | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null
  const message = item as { method?: unknown; id?: unknown; params?: unknown }
  if (typeof message.method !== 'string') return null
  const method = message.method.slice(0, MAX_NAME_LENGTH)
  let tool: string | null = null
  if (method === 'tools/call') {
    const name = (message.params as { name?: unknown } | null | undefined)?.name
    if (typeof name === 'string') tool = name.slice(0, MAX_NAME_LENGTH)
  }
  return { method, id: idOf(message), tool }
}

/** The id as JSON-RPC allows it (string, number or null); absent means a notification. */
function idOf(message: { id?: unknown }): JsonRpcId | undefined {
  if (!('id' in message)) return undefined
  const id = message.id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
