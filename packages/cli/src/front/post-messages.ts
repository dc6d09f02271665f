import { idKey, jsonRpcMessageOf, type JsonRpcBody, type JsonRpcMessage } from '@burrow/protocol'

/**
 * The messages of a POST body, or why the front refuses it: every message must be valid JSON-RPC,
 * and a batch may not repeat a request id.
 */
export function postMessages(
  body: JsonRpcBody,
): { batch: boolean; messages: JsonRpcMessage[] } | string {
  const messages: JsonRpcMessage[] = []
  const ids = new Set<string>()
  for (const classified of body.messages) {
    if (classified.kind === 'invalid') return `Invalid Request: ${classified.problem}`
    if (classified.kind === 'request') {
      if (ids.has(idKey(classified.id))) return 'Invalid Request: a batch repeats a request id'
      ids.add(idKey(classified.id))
    }
    messages.push(jsonRpcMessageOf(classified)!)
  }
  return { batch: body.batch, messages }
}
