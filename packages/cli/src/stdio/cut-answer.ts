/**
 * Which request a stdout line too long to read answered, when the scan that read it as it passed
 * (`batch-answer-ids.ts`, which gives a JSON line's id) found it is not JSON: from the ends of the
 * line that were kept (`LineEnds`), the `id` member of the message object, when it comes before
 * any member whose value is an object or array (`{"jsonrpc":"2.0","id":3,"result":…`, as the
 * Python SDK writes) or is its last member (`{"result":…,"jsonrpc":"2.0","id":3}`, as the
 * TypeScript SDK writes). A head that names a `method`, or whose first object or array member is
 * not `result` or `error` (the Rust and Go SDKs write a request's id before its method or
 * params), is not an answer: its id is the server's own, and an error for it would answer another
 * request. Without this, the agent whose answer was dropped waited for ever. The line is the
 * server's own: a server that lies here could as well have sent any answer.
 */
import { errorResponse, JSONRPC_CODE, type JsonRpcError, type JsonRpcId } from '@burrow/protocol'
import type { LineEnds } from './line-splitter.js'

const STRING = String.raw`"(?:[^"\\]|\\.)*"`
const SCALAR = String.raw`${STRING}|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`
/** One member with a scalar value and what follows it, from where the last one ended. */
const MEMBER = new RegExp(String.raw`\s*(${STRING})\s*:\s*(${SCALAR})\s*([,}])`, 'y')
/** The first member whose value is not a scalar, when it is an answer's. */
const ANSWER_MEMBER = /\s*"(?:result|error)"\s*:/y
/** The message's last member, `id`, and the object's end, ending the line. */
const LAST_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*(${STRING}|-?\d+)\s*\}\s*$`)

/** The id of the answer whose line began with `head` and ended with `tail`, if one can be read. */
export function cutAnswerId(ends: LineEnds): JsonRpcId | undefined {
  const head = ends.head.toString('utf8')
  const start = /^\s*\{/.exec(head)
  if (!start) return undefined
  let at = start[0].length
  let id: string | undefined
  MEMBER.lastIndex = at
  for (let m = MEMBER.exec(head); m !== null; m = MEMBER.exec(head)) {
    const name = JSON.parse(m[1]!) as string
    if (name === 'method' || m[3] === '}') return undefined
    if (name === 'id') id = m[2]!
    at = MEMBER.lastIndex
  }
  ANSWER_MEMBER.lastIndex = at
  if (!ANSWER_MEMBER.test(head)) return undefined
  if (id !== undefined) return idOf(id)
  const last = LAST_ID.exec(ends.tail.toString('utf8'))
  return last ? idOf(last[1]!) : undefined
}

/** The error the agent gets in place of an answer of `bytes` bytes, over the bound `limit`. */
export function cutAnswerError(id: JsonRpcId, bytes: number, limit: number): JsonRpcError {
  const reason =
    `the server's answer is ${bytes} bytes long, more than the ${limit} bytes burrow reads ` +
    'from one line; it was not forwarded'
  return errorResponse(id, JSONRPC_CODE.internalError, reason)
}

function idOf(text: string): JsonRpcId | undefined {
  const value: unknown = JSON.parse(text)
  if (typeof value === 'string') return value
  return Number.isSafeInteger(value) ? (value as number) : undefined
}

/**
 * What `burrow up` answers the server itself for a request of its own (`id` its id) in a line of
 * `bytes` bytes, over the bound `limit`: the request is not forwarded, and the server should not
 * wait for an answer that never comes.
 */
export function cutRequestReply(id: JsonRpcId, bytes: number, limit: number): JsonRpcError {
  const reason =
    `the request is in a line of ${bytes} bytes, more than the ${limit} bytes burrow reads ` +
    'from one line; it was not forwarded to the agent'
  return errorResponse(id, JSONRPC_CODE.invalidRequest, reason)
}
