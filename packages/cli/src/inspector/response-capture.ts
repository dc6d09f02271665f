/**
 * Keeps what the inspector shows of one response while it streams: status and headers, then
 * either the body (JSON or text, bounded) or, for `text/event-stream`, each event's data as it
 * arrives (read with the shared `SseParser`), with its time. An event is kept as its text, which
 * is what the budget counts, and parsed into its JSON-RPC message only when `messages` is read:
 * parsed, `{"a":[{},{},…]}` takes ten times the memory of its text. Used by the traffic tap and by
 * replay alike.
 */
import { isBodyProblem, parseJsonRpcText, SseParser, type SseEvent } from '@burrow/protocol'
import type { ResponseHeaders } from '../relay/local-exchange.js'
import { BodyCapture, DEFAULT_MAX_BODY_BYTES, type CapturedBody } from './captured-body.js'
import { headerBytes } from './held-bytes.js'
import { isErrorAnswer } from './json-rpc-summary.js'

/** How a response body is kept: as bytes, as SSE messages, or not at all (compressed). */
export type ResponseKind = 'body' | 'sse' | 'encoded'

/** One message of an SSE response. */
export interface CapturedMessage {
  /** Milliseconds since the request started. */
  readonly at: number
  /** The SSE `id:` field, or null. */
  readonly eventId: string | null
  /** The JSON-RPC message (or batch) as sent, or the raw `data` text when it is not JSON-RPC. */
  readonly message: unknown
}

/**
 * What keeping an event costs beyond its text, counted as characters: its record and time. An
 * empty event (`data:` and a blank line, 7 bytes) counted nothing, so a server streaming them was
 * kept without end (found by a hostile review: 2 million held 150 MB, counted as 0).
 */
export const KEPT_EVENT_COST = 64

/** An SSE event as kept: its data as sent. */
interface KeptEvent {
  readonly at: number
  readonly eventId: string | null
  readonly data: string
}

/** Options of `ResponseCapture`. */
export interface ResponseCaptureOptions {
  readonly maxBodyBytes?: number
  /** When the request started, in `clock()` milliseconds. */
  readonly startedAt: number
  readonly clock?: () => number
  /** Told after each SSE message was added. */
  readonly onMessage?: () => void
}

/** The captured state of one response. */
export class ResponseCapture {
  status: number | null = null
  headers: Readonly<Record<string, string>> = {}
  kind: ResponseKind = 'body'
  /** Milliseconds from the start to the head. */
  headAfterMs: number | null = null
  /** Messages seen, including those not kept. */
  messageCount = 0
  /** True when messages were dropped (over the byte bound, or an event too long to read). */
  messagesTruncated = false
  #rpcError = false
  readonly #kept: KeptEvent[] = []
  /** Characters of the kept events' data and ids, with `KEPT_EVENT_COST` for each. */
  #messageChars = 0
  #headerBytes = 0
  /** Body bytes of SSE and compressed responses, which are counted rather than kept. */
  #sizeOnly = 0
  readonly #opts: ResponseCaptureOptions
  readonly #max: number
  readonly #clock: () => number
  readonly #body: BodyCapture
  #sse: SseParser | null = null

  constructor(options: ResponseCaptureOptions) {
    this.#opts = options
    this.#max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
    this.#clock = options.clock ?? Date.now
    this.#body = new BodyCapture(this.#max)
  }

  /** Status and headers were sent. */
  head(status: number, headers: ResponseHeaders): void {
    this.status = status
    this.headers = lowerCased(headers)
    this.#headerBytes = headerBytes(this.headers)
    this.headAfterMs = this.#clock() - this.#opts.startedAt
    const type = this.headers['content-type'] ?? ''
    const encoding = this.headers['content-encoding'] ?? 'identity'
    if (encoding !== 'identity') this.kind = 'encoded'
    else if (/^text\/event-stream\b/i.test(type)) {
      this.kind = 'sse'
      // An event longer than twice the bound is not kept anyway; stop reading it early.
      this.#sse = new SseParser({ maxEventChars: this.#max * 2 })
    }
  }

  /** A body chunk was sent. */
  chunk(bytes: Uint8Array): void {
    if (this.#sse) {
      this.#sizeOnly += bytes.length
      this.#events(this.#sse.push(bytes))
    } else if (this.kind === 'encoded') this.#sizeOnly += bytes.length
    else this.#body.add(bytes)
  }

  /** The body is complete. */
  end(): void {
    if (this.#sse) {
      this.#events(this.#sse.end())
      return
    }
    if (this.kind !== 'body') return
    const body = this.#body.snapshot()
    if (body.truncated || !/json/i.test(this.headers['content-type'] ?? '')) return
    const read = parseJsonRpcText(body.text)
    // Not JSON after all: shown as text.
    if (isBodyProblem(read) && read.policy === 'parse_error') return
    this.messageCount = 1
    this.#rpcError = !isBodyProblem(read) && read.messages.some((m) => isErrorAnswer(m.value))
  }

  /** The kept SSE messages, each parsed as it is read (a fresh copy on every read). */
  get messages(): CapturedMessage[] {
    return this.#kept.map(({ at, eventId, data }) => ({ at, eventId, message: messageOf(data) }))
  }

  /** The kept body (null for SSE and compressed responses, whose bytes are only counted). */
  get body(): CapturedBody | null {
    return this.kind === 'body' ? this.#body.snapshot() : null
  }

  /** Bytes of the response body seen so far. */
  get bytes(): number {
    return this.kind === 'body' ? this.#body.bytes : this.#sizeOnly
  }

  /** True when an answer carried a JSON-RPC error or a tool error. */
  get rpcError(): boolean {
    return this.#rpcError
  }

  /** Rough memory held, for the recorder's budget. */
  get heldBytes(): number {
    return this.#headerBytes + this.#body.keptBytes + this.#messageChars * 2
  }

  #events(events: readonly SseEvent[]): void {
    for (const event of events) this.#message(event.id, event.data)
    if ((this.#sse?.dropped ?? 0) > 0) this.messagesTruncated = true
  }

  #message(eventId: string | null, data: string): void {
    this.messageCount++
    // Parsed here only to flag errors; what is kept is the text.
    if (isErrorAnswer(messageOf(data))) this.#rpcError = true
    const chars = data.length + (eventId?.length ?? 0) + KEPT_EVENT_COST
    if (this.#messageChars + chars > this.#max) {
      this.messagesTruncated = true
    } else {
      this.#messageChars += chars
      this.#kept.push({ at: this.#clock() - this.#opts.startedAt, eventId, data })
    }
    this.#opts.onMessage?.()
  }
}

/** An event's data as shown: one message or a batch; text that is not JSON-RPC as text. */
function messageOf(data: string): unknown {
  const read = parseJsonRpcText(data)
  if (isBodyProblem(read)) return data
  return read.batch ? read.messages.map((m) => m.value) : read.messages[0]!.value
}

function lowerCased(headers: ResponseHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    out[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ')
  return out
}
