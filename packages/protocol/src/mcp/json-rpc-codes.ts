/**
 * The JSON-RPC error codes Burrow sends or reads: JSON-RPC 2.0's own, and the ones MCP and Burrow
 * define in the implementation range. The one table for the edge, the CLI's front and aggregator.
 */

/** JSON-RPC error codes by name. */
export const JSONRPC_CODE = {
  /** The bytes are not JSON. */
  parseError: -32700,
  /** JSON that is not a valid JSON-RPC message. */
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error: a Burrow policy refused the request (the envelope). */
  refused: -32000,
  /**
   * The same implementation-defined code as `refused`, for failures of transport and session
   * rather than policy: a server that is down, restarting or not initialized, a cancelled call.
   */
  serverError: -32000,
  /** What the MCP SDK's server answers for an unknown session id (with HTTP 404). */
  sessionNotFound: -32001,
  /** What the MCP SDKs answer for a request that timed out (the same number as `sessionNotFound`). */
  requestTimeout: -32001,
  /** 2026-07-28: a mirrored header (`Mcp-Method`, `Mcp-Name`…) disagrees with the body (HTTP 400). */
  headerMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` does not declare (HTTP 400). */
  missingClientCapability: -32021,
  /** 2026-07-28: the body names a revision the server does not serve; data lists them (HTTP 400). */
  unsupportedProtocolVersion: -32022,
} as const

/** A JSON-RPC error code of the table. */
export type JsonRpcCode = (typeof JSONRPC_CODE)[keyof typeof JSONRPC_CODE]
