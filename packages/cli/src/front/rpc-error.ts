/**
 * A JSON-RPC error raised while routing an agent request (an unknown prefix, an upstream that is
 * down, an upstream's own error answer). The backend turns it into the error response the agent
 * receives, keeping `code`, `message` and `data`.
 */
import { errorResponse, JSONRPC_CODE, type JsonRpcError, type JsonRpcId } from '@burrow/protocol'

/** An error with the JSON-RPC code the agent should see. */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }
}

/** The error response for request `id`; anything that is not an `RpcError` is an internal error. */
export function rpcErrorResponse(id: JsonRpcId, err: unknown): JsonRpcError {
  if (err instanceof RpcError) return errorResponse(id, err.code, err.message, err.data)
  const message = err instanceof Error ? err.message : String(err)
  return errorResponse(id, JSONRPC_CODE.internalError, `internal error: ${message}`)
}
