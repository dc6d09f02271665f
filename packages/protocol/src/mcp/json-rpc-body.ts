/**
 * The one reader of JSON-RPC POST bodies, for the edge and the CLI, and of the JSON-RPC text the
 * CLI's servers send it (`parseJsonRpcText`). Bounded before it parses:
 * nesting deeper than `maxDepth` is refused without building it (a body of brackets costs the
 * parser far more than its size suggests, and any recursive walk of it would overflow the stack),
 * and a batch may hold at most `maxBatch` messages. Each message is classified
 * (classify-message.ts); invalid ones are kept, with why, for the caller to refuse or pass on. A
 * message that names a member twice in one object is invalid (body-scan.ts says why), and so is an
 * agent's message with names a server matching them without case reads as one (case-variants.ts).
 */
import { scanBody, type BodyScan, type RepeatedMember } from './body-scan.js'
import { caseVariantOf, foldMemberName } from './case-variants.js'
import { classifyMessage, type ClassifiedMessage } from './classify-message.js'
import { JSONRPC_CODE } from './json-rpc-codes.js'
import { isRecord } from './json-rpc.js'
import { jsonSyntaxError } from './json-syntax.js'
import { jsonStartProblem } from './json-text-start.js'
import { memberSpans } from './json-member-text.js'
import { isLargeNumberId, LargeNumberId } from './large-number-id.js'
import type { RefusedId } from './refusal.js'

/** Bounds of `readJsonRpcBody`. */
export interface BodyLimits {
  /** Deepest nesting of arrays and objects, the batch array included. */
  readonly maxDepth: number
  /** Most messages in one batch. */
  readonly maxBatch: number
}

/** Nesting deeper than MCP's own messages ever need; a batch as large as the MCP SDK allows. */
export const DEFAULT_BODY_LIMITS: BodyLimits = { maxDepth: 64, maxBatch: 100 }

/** A body read as JSON-RPC: one message, or a batch (a JSON array) of them. */
export interface JsonRpcBody {
  readonly batch: boolean
  readonly messages: readonly ClassifiedMessage[]
}

/** Why a body cannot be read as JSON-RPC at all. */
export interface BodyProblem {
  /** The JSON-RPC error code to answer with. */
  readonly code: number
  /** `parse_error`: not JSON (or too deep to read); `invalid_request`: not JSON-RPC. */
  readonly policy: 'parse_error' | 'invalid_request'
  /** A short summary, for `error.message`. */
  readonly message: string
  /** What is wrong, for the agent. */
  readonly reason: string
}

const decoder = new TextDecoder('utf-8', { fatal: true })

/** Read `bytes` as a JSON-RPC body, or say why it is not one. Never throws. */
export function readJsonRpcBody(
  bytes: Uint8Array,
  limits: BodyLimits = DEFAULT_BODY_LIMITS,
): JsonRpcBody | BodyProblem {
  const { depth, repeated } = scanBody(bytes, limits.maxDepth)
  if (depth > limits.maxDepth) {
    return parseProblem(`the body nests arrays and objects deeper than ${limits.maxDepth} levels`)
  }
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch (err) {
    return parseProblem(`the request body is not valid UTF-8: ${(err as Error).message}`)
  }
  return readParsed(text, limits, repeated)
}

function readParsed(
  text: string,
  limits: BodyLimits,
  repeated: BodyScan['repeated'],
): JsonRpcBody | BodyProblem {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return parseProblem(`the request body is not valid JSON: ${(err as Error).message}`)
  }
  return fromValue(value, limits.maxBatch, text, repeated, true)
}

/** Options of `parseJsonRpcText`. */
export interface TextReadOptions {
  /**
   * Check the grammar of short text before `JSON.parse`, whose refusal (an exception) costs V8
   * about eight times a short message's parse, and the check about half of one: for a reader that
   * has met broken text already (a stream of it), not for every message.
   */
  readonly checkFirst?: boolean
}

/** Text up to this long is checked first, when asked; past it the parse costs more than a refusal. */
export const CHECKED_JSON_CHARS = 4096

/**
 * Read JSON text that a server sent (a stdio line, an SSE event's data, an HTTP answer) as
 * JSON-RPC, the way `readJsonRpcBody` reads an agent's body but without its bounds: a server's
 * answers nest as deep as its tools' results do, and their size was bounded where they were read.
 * Never throws; text that cannot even start JSON is refused without asking `JSON.parse`
 * (json-text-start.ts), and so is short broken text with `checkFirst` (json-syntax.ts).
 */
export function parseJsonRpcText(
  text: string,
  options: TextReadOptions = {},
): JsonRpcBody | BodyProblem {
  const start = jsonStartProblem(text)
  if (start !== null) return parseProblem(`not valid JSON: ${start}`)
  if (options.checkFirst && text.length <= CHECKED_JSON_CHARS) {
    const at = jsonSyntaxError(text)
    if (at >= 0) return parseProblem(`not valid JSON: it breaks at character ${at + 1}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    return parseProblem(`not valid JSON: ${(err as Error).message}`)
  }
  return fromValue(value, Infinity, text, null, false)
}

/**
 * The value parsed from `text` as one message or a batch of at most `maxBatch`; a message that
 * names a member twice (`repeated`, by element, -1 for a single message) is invalid, and with
 * `caseVariants` one whose names differ only in case.
 */
function fromValue(
  value: unknown,
  maxBatch: number,
  text: string,
  repeated: BodyScan['repeated'],
  caseVariants: boolean,
): JsonRpcBody | BodyProblem {
  // The ids' text, found in one pass over the body when the first id too large to hold exactly
  // needs it: found again for each such message, a batch of them cost its length squared (8,000
  // in a server's 445 KiB answer held the node for 8 s; a hostile review).
  let idSpans: ReturnType<typeof memberSpans> = null
  let scanned = false
  const idText = (element: number | null): string | null => {
    if (!scanned) {
      scanned = true
      try {
        idSpans = memberSpans(text, 'id')
      } catch {
        // Not reached for text JSON.parse accepted; the rounded number is the fallback.
      }
    }
    const last = idSpans?.[element ?? 0]?.at(-1)
    return last === undefined ? null : text.slice(last[0], last[1])
  }
  const read = (v: unknown, element: number | null) => {
    const m = withLargeId(classifyMessage(v), idText, element)
    const twice = repeated?.get(element ?? -1)
    if (twice !== undefined) return withRepeatedMember(m, twice)
    const variant = caseVariants ? caseVariantOf(v) : null
    return variant === null
      ? m
      : withProblem(m, variant.inMessage && variant.name === 'id', variant.problem)
  }
  if (!Array.isArray(value)) {
    if (typeof value !== 'object' || value === null) {
      return invalid('a JSON-RPC message must be an object')
    }
    return { batch: false, messages: [read(value, null)] }
  }
  if (value.length === 0) return invalid('a JSON-RPC batch must contain at least one message')
  if (value.length > maxBatch) {
    return invalid(
      `a JSON-RPC batch holds at most ${maxBatch} messages; this one has ${value.length}`,
    )
  }
  return {
    batch: true,
    messages: value.map((v: unknown, k) => read(v, k)),
  }
}

/** Message `m`, invalid for naming a member twice in one object. */
function withRepeatedMember(m: ClassifiedMessage, twice: RepeatedMember): ClassifiedMessage {
  const name = JSON.stringify(twice.name.length > 64 ? `${twice.name.slice(0, 64)}…` : twice.name)
  return withProblem(
    m,
    twice.inMessage && twice.name === 'id',
    `the member ${name} appears twice in one object, and servers differ on which one they ` +
      'read; send each member once',
  )
}

/** Message `m`, invalid for `problem`; `idInDoubt` when which id the agent meant is unclear. */
function withProblem(m: ClassifiedMessage, idInDoubt: boolean, problem: string): ClassifiedMessage {
  // Which of two ids the agent meant nobody can tell: the refusal then carries none.
  const id = idInDoubt || m.kind === 'notification' ? null : m.id
  return {
    kind: 'invalid',
    id,
    method: m.kind === 'response' ? null : m.method,
    problem,
    value: m.value,
  }
}

/**
 * A message refused for a numeric id too large to hold exactly, with that id as the digits
 * `idText` finds (in the message itself, or element `element` of the batch it holds), for its
 * refusal.
 */
function withLargeId(
  m: ClassifiedMessage,
  idText: (element: number | null) => string | null,
  element: number | null,
): ClassifiedMessage {
  if (m.kind !== 'invalid' || !isRecord(m.value) || !isLargeNumberId(m.value.id)) return m
  return { ...m, id: new LargeNumberId(idText(element), m.value.id) }
}

/**
 * Whether JSON `text` (whose UTF-8 is `bytes`, when the caller has them) names a member twice in
 * one object, at any depth. `JSON.parse` keeps the last of the two; a reader keeping the first
 * reads other text than what was checked.
 */
export function namesMemberTwice(text: string, bytes?: Uint8Array): boolean {
  return scanBody(bytes ?? Buffer.from(text, 'utf8'), Infinity).repeated !== null
}

/** True when `read` is a problem rather than a body. */
export function isBodyProblem(read: JsonRpcBody | BodyProblem): read is BodyProblem {
  return 'policy' in read
}

/**
 * The ids a refusal of `body` answers: the single request's id (null when it is not a request),
 * or, for a batch, one per request (null when the batch holds no request: the agent still gets one
 * envelope saying why). An invalid message's id counts as a request's. A response's id does not:
 * it is the id of the server's question the agent answered, from the server's numbering, and an
 * agent's SDK would take an error with it for the answer to a request of its own with that id;
 * nor does an invalid message shaped as a response.
 */
export function refusalIds(body: JsonRpcBody | null): RefusedId | RefusedId[] {
  if (body === null) return null
  if (!body.batch) {
    const m = body.messages[0]
    return m && (m.kind === 'request' || (m.kind === 'invalid' && !shapedAsResponse(m)))
      ? m.id
      : null
  }
  const ids: RefusedId[] = []
  for (const m of body.messages) {
    if (m.kind === 'request') ids.push(m.id)
    else if (m.kind === 'invalid' && m.id !== null && !shapedAsResponse(m)) ids.push(m.id)
  }
  return ids.length > 0 ? ids : null
}

/**
 * True for an invalid message that reads as a response (no method; a result or an error): a
 * result beside an error, a member named twice, an id too large. Its id is a server's question's
 * as much as a valid response's is.
 */
export function shapedAsResponse(m: Extract<ClassifiedMessage, { kind: 'invalid' }>): boolean {
  if (m.method !== null || !isRecord(m.value)) return false
  // Names as a server matching them without case reads them: `Method` beside a result reads as
  // a request, and `Result` as a result.
  const names = Object.keys(m.value).map(foldMemberName)
  return !names.includes('method') && (names.includes('result') || names.includes('error'))
}

/**
 * The ids a refusal of the raw body `bytes` answers (see `refusalIds`); null when the body cannot
 * be read. For answers built far from where the body was read (a local server that failed).
 */
export function refusalIdsOf(bytes: Uint8Array): RefusedId | RefusedId[] {
  if (bytes.length === 0) return null
  const body = readJsonRpcBody(bytes)
  return isBodyProblem(body) ? null : refusalIds(body)
}

function parseProblem(reason: string): BodyProblem {
  return { code: JSONRPC_CODE.parseError, policy: 'parse_error', message: 'Parse error', reason }
}

function invalid(reason: string): BodyProblem {
  return {
    code: JSONRPC_CODE.invalidRequest,
    policy: 'invalid_request',
    message: 'Invalid Request',
    reason,
  }
}
