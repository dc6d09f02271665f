/**
 * Roots and the servers `burrow up` shares between agents: a stdio server (one child for every
 * agent session) and every upstream of an aggregate (one session of burrow's each). A client's
 * roots tell a server where it may work, and servers act on them for everyone: the reference
 * filesystem server replaces the directories it was started with by its client's roots. Relayed,
 * any agent the tunnel admits could set them for every agent (`file:///` for the owner's
 * `~/project`), and they name directories of the agent's machine, not of the server's. So such a
 * server is never told of `roots` in the initialize it gets, an agent's
 * `notifications/roots/list_changed` does not reach it, and its `roots/list` is answered here
 * with an error, never by an agent. A lone HTTP server keeps its own session per agent, and
 * burrow relays what they say unchanged. docs/decisions.md, "Roots of a shared server".
 */
import {
  errorResponse,
  isRecord,
  JSONRPC_CODE,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcRequest,
} from '@burrow/protocol'

/** The server→client request a shared server is refused. */
export const ROOTS_LIST = 'roots/list'

/** The agent notification a shared server is not sent. */
export const ROOTS_LIST_CHANGED = 'notifications/roots/list_changed'

/** Why a shared server's `roots/list` got an error. */
export const SHARED_ROOTS_REFUSAL =
  "burrow up shares this server between agents, so no client's roots are given to it: the " +
  'directories it was started with stay the ones it serves'

/** `capabilities` without `roots`. */
export function withoutRoots(
  capabilities: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const { roots: _roots, ...rest } = capabilities
  void _roots
  return rest
}

/** An `initialize` request whose client capabilities, if any, leave `roots` out. */
export function initializeWithoutRoots(message: JsonRpcRequest): JsonRpcRequest {
  const capabilities = message.params?.capabilities
  if (!isRecord(capabilities) || !('roots' in capabilities)) return message
  return { ...message, params: { ...message.params, capabilities: withoutRoots(capabilities) } }
}

/** The answer to a shared server's `roots/list` of id `id`. */
export function sharedRootsRefusal(id: JsonRpcId): JsonRpcError {
  return errorResponse(id, JSONRPC_CODE.methodNotFound, SHARED_ROOTS_REFUSAL)
}
