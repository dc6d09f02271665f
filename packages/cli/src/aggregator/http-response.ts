/**
 * How the aggregator's HTTP client reads a Streamable HTTP server's answers: headers, whether a
 * body is an SSE stream and the message events in it, whether a refusal means the server forgot
 * the session, the JSON-RPC error inside an error body, and a one-line cause for a failed
 * connection.
 */
import type { Dispatcher } from 'undici'
import {
  ByteBlocks,
  isBodyProblem,
  isRecord,
  isResponse,
  jsonRpcMessageOf,
  parseJsonRpcText,
  type BodyProblem,
  SseParser,
  type JsonRpcId,
  type JsonRpcMessage,
  type SseEvent,
} from '@burrow/protocol'
import { MAX_MESSAGE_DEPTH, nestsDeeperThan, tooDeepReplacement } from '../stdio/message-depth.js'
import { invalidAnswerReplacement } from '../stdio/invalid-answer.js'

type Response = Dispatcher.ResponseData

/** A response header's value (the first, if repeated). */
export function header(response: Response, name: string): string | undefined {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** True for a successful response whose body is an SSE stream. */
export function isStream(response: Response): boolean {
  const type = header(response, 'content-type') ?? ''
  return response.statusCode < 300 && type.toLowerCase().startsWith('text/event-stream')
}

/**
 * True when the server refused a request for our session id: 404 as the MCP spec requires, or 400
 * naming the session as some servers (server-everything among them) answer.
 */
export function sessionGone(status: number, body: string): boolean {
  return status === 404 || (status === 400 && /session/i.test(body))
}

/** True when `message` is the response to request `id`. */
export function isAnswerTo(message: JsonRpcMessage, id: JsonRpcId | undefined): boolean {
  return id !== undefined && isResponse(message) && message.id === id
}

/**
 * The valid JSON-RPC messages in `text` (one, or a batch) and, for each invalid one, why; or what
 * is wrong with the text as a whole. Text nested too deep to write again yields only errors for
 * its answers (`message-depth.ts`).
 */
export function messagesIn(
  text: string,
): { messages: JsonRpcMessage[]; skipped: string[] } | BodyProblem['policy'] {
  const read = parseJsonRpcText(text)
  if (isBodyProblem(read)) return read.policy
  const messages: JsonRpcMessage[] = []
  const skipped: string[] = []
  if (nestsDeeperThan(text)) {
    for (const classified of read.messages) {
      const replacement = tooDeepReplacement(classified)
      if (replacement !== null) messages.push(replacement)
      skipped.push(`nested deeper than ${MAX_MESSAGE_DEPTH} levels`)
    }
    return { messages, skipped }
  }
  for (const classified of read.messages) {
    if (classified.kind === 'invalid') {
      skipped.push(classified.problem)
      // An answer that names its request still ends it, as an error (stdio/invalid-answer.ts).
      const replacement = invalidAnswerReplacement(classified)
      if (replacement !== null) messages.push(replacement)
    } else messages.push(jsonRpcMessageOf(classified)!)
  }
  return { messages, skipped }
}

/**
 * The JSON-RPC error in an error response body, if it holds one. Read leniently: some servers
 * leave out `jsonrpc` or `id` in the bodies of their HTTP errors, and the error is still theirs.
 */
export function jsonRpcErrorIn(
  text: string,
): { code: number; message: string; data?: unknown } | undefined {
  const read = parseJsonRpcText(text)
  // Not JSON, or a batch: the caller quotes the text.
  if (isBodyProblem(read) || read.batch) return undefined
  const value = read.messages[0]!.value
  const error = isRecord(value) ? value.error : undefined
  if (isRecord(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    return { code: error.code, message: error.message, data: error.data }
  }
  return undefined
}

/**
 * Largest SSE event read from an upstream, in characters: the bound a stdio server's message line
 * has (`stdio-supervisor.ts`). A larger one is skipped and reported, rather than held.
 */
export const MAX_SSE_EVENT_CHARS = 10 * 1024 * 1024

/**
 * Largest JSON answer body read from an upstream, in bytes. A larger one fails its request, and
 * the rest is not read (the connection is dropped). Above an SSE event's bound: the aggregate
 * passed JSON answers of any size before it was bounded (tools answering 20 MB, as through a
 * single server, which streams its answers), and only an endless one has to be stopped.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** Bytes of an error body read, to quote it (at most 2,048 characters of it are quoted). */
export const MAX_QUOTED_BODY_BYTES = 8 * 1024

/**
 * The text of a body read up to `maxBytes` (its first `maxBytes` when longer, a character cut at
 * the bound dropped), and whether it was whole. The rest is not read: the body is destroyed,
 * which drops its connection. Found by a hostile review: bodies were read whole, so a local
 * server answering with an endless body grew `burrow up` until it died, with every upstream's
 * calls. Small chunks are copied together (`ByteBlocks`), so a body sent a byte at a time is not
 * held as a Buffer per byte. A body that fails is read as what came before, and its failure
 * given as `broken`.
 */
export async function readBodyText(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ readonly text: string; readonly whole: boolean; readonly broken: Error | null }> {
  const kept = new ByteBlocks()
  let whole = true
  let broken: Error | null = null
  try {
    for await (const chunk of body) {
      const room = maxBytes - kept.length
      kept.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
      if (chunk.length > room) {
        whole = false
        break
      }
    }
  } catch (err) {
    // What came is all there is; the caller says whether that will do.
    broken = err instanceof Error ? err : new Error(String(err))
  }
  const bytes = kept.bytes()
  // A view of the bytes, not a copy: an answer of 64 MiB is held once more as its text already.
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')
  if (!whole && text.endsWith('\uFFFD')) text = text.slice(0, -1)
  return { text, whole, broken }
}

/**
 * Where a stream can be resumed from: the id of its last event (sent back as `Last-Event-ID`) and
 * the server's `retry` (ms), carried over from one body of the stream to the next.
 */
export interface SseCursor {
  lastEventId: string | null
  retryMs: number | null
}

/** The first 2,048 characters of a refusal's body, to quote it (the rest is not read). */
export async function quotedBody(response: Response): Promise<string> {
  return (await readBodyText(response.body, MAX_QUOTED_BODY_BYTES)).text.slice(0, 2048)
}

/** What `readSseData` reports. */
export interface SseDataHandlers {
  /** The data of a `message` event that has some, and the body bytes read since the last call. */
  readonly onData: (data: string, bytes: number) => void
  /** An event was skipped for passing the bound. */
  readonly onDropped: () => void
  /** Updated with the body's event ids and `retry` as they come (an empty id is passed over). */
  readonly cursor?: SseCursor
}

/** An event id a `Last-Event-ID` header can carry. */
const RESUMABLE_EVENT_ID = /^[\x20-\x7e]{1,1024}$/

/**
 * Read an SSE body to its end with the shared parser (`SseParser`). Events without data are
 * priming events (an id to resume from, kept in `cursor`) or padding, and events of other types
 * are not MCP's: both are passed over. Rejects when the body fails (a reset, an abort).
 */
export async function readSseData(
  body: AsyncIterable<Uint8Array>,
  handlers: SseDataHandlers,
  maxEventChars = MAX_SSE_EVENT_CHARS,
): Promise<void> {
  const parser = new SseParser({ maxEventChars })
  let bytes = 0
  let dropped = 0
  const cursor = handlers.cursor
  const take = (events: readonly SseEvent[]): void => {
    if (cursor) {
      // An id no header can carry (a control character, past Latin-1, or longer than a
      // header should be) cannot be resumed from: the stream is taken as having none.
      if (parser.lastEventId) {
        cursor.lastEventId = RESUMABLE_EVENT_ID.test(parser.lastEventId) ? parser.lastEventId : null
      }
      if (parser.reconnectionTime !== null) cursor.retryMs = parser.reconnectionTime
    }
    for (const event of events) {
      if (event.event !== 'message' || event.data === '') continue
      handlers.onData(event.data, bytes)
      bytes = 0
    }
    for (; dropped < parser.dropped; dropped++) handlers.onDropped()
  }
  for await (const chunk of body) {
    bytes += chunk.length
    take(parser.push(chunk))
  }
  take(parser.end())
}

/** A failed request's cause in one line, e.g. `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1`. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as { code?: unknown }).code
  const cause = (err as { cause?: unknown }).cause
  const detail = cause instanceof Error ? cause.message : err.message
  return typeof code === 'string' && !detail.includes(code) ? `${code}: ${detail}` : detail
}
