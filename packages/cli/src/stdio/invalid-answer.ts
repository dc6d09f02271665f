/**
 * What the agent gets in place of a server's answer that is not valid JSON-RPC but names its
 * request (`"result": null`, `"error": "failed"`, a result beside an error): an error for that
 * id, as for an answer too long or nested too deep. Before, the answer was skipped with a warning
 * and the agent's call waited until the agent gave up (found by a hostile review).
 */
import {
  errorResponse,
  isJsonRpcId,
  JSONRPC_CODE,
  shapedAsResponse,
  type ClassifiedMessage,
  type JsonRpcMessage,
} from '@burrow/protocol'

/** The error answering an invalid answer's id; null for anything else. */
export function invalidAnswerReplacement(message: ClassifiedMessage): JsonRpcMessage | null {
  if (message.kind !== 'invalid' || !shapedAsResponse(message)) return null
  if (message.id === null || !isJsonRpcId(message.id)) return null
  const reason = `the local server's answer is not valid JSON-RPC (${message.problem})`
  return errorResponse(message.id, JSONRPC_CODE.internalError, reason)
}
