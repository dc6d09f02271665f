/**
 * Progress tokens live in a request's `params._meta.progressToken` and are chosen by the agent, so
 * a backend that funnels many agents into one server must swap them for tokens of its own (and
 * back on `notifications/progress`).
 */
import type { JsonRpcId, JsonRpcRequest } from '@burrow/protocol'

/** The progress token of a request, if its sender asked for progress. */
export function progressTokenOf(message: JsonRpcRequest): JsonRpcId | undefined {
  const meta = message.params?._meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const token = (meta as Record<string, unknown>).progressToken
  return typeof token === 'string' || typeof token === 'number' ? token : undefined
}

/** The request's params with the progress token replaced by `token`. */
export function withProgressToken(
  message: JsonRpcRequest,
  token: JsonRpcId,
): Record<string, unknown> {
  const params = message.params ?? {}
  const meta = params._meta as Record<string, unknown> | undefined
  return { ...params, _meta: { ...meta, progressToken: token } }
}
