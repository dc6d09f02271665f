import {
  idKey,
  isRecord,
  jsonRpcMessageOf,
  type JsonRpcBody,
  type JsonRpcMessage,
} from '@burrow/protocol'
import { RELATED_TASK } from './task-params.js'

/**
 * The messages of a POST body, or why the front refuses it: every message must be valid JSON-RPC,
 * a batch may not repeat a request id, and a request's `_meta` must be one the MCP SDKs read.
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
    const message = jsonRpcMessageOf(classified)!
    const problem = 'id' in message && 'method' in message ? metaProblem(message.params) : null
    if (problem !== null) return `Invalid Request: ${problem}`
    messages.push(message)
  }
  return { batch: body.batch, messages }
}

/**
 * What is wrong with a request's `params._meta`, or null: it must be an object, its
 * `progressToken` a string or a number, its related task an object with a string `taskId`. A
 * server's SDK cannot read a request with another (the TypeScript SDK drops it as unreadable,
 * without an answer), so the agent would wait for ever.
 */
function metaProblem(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (params === undefined || !Object.hasOwn(params, '_meta')) return null
  const meta = params._meta
  if (!isRecord(meta)) return 'params._meta must be an object'
  const token = meta.progressToken
  if (
    Object.hasOwn(meta, 'progressToken') &&
    typeof token !== 'string' &&
    typeof token !== 'number'
  )
    return 'params._meta.progressToken must be a string or a number'
  const task = meta[RELATED_TASK]
  if (Object.hasOwn(meta, RELATED_TASK) && !(isRecord(task) && typeof task.taskId === 'string'))
    return `params._meta["${RELATED_TASK}"] must be an object with a string taskId`
  return null
}
