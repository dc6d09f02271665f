/**
 * The `requestState`s a local HTTP server hands out in one answer (MCP 2026-07-28: a result
 * `{resultType: "input_required", inputRequests, requestState}`), read as the answer passes to
 * the agent, JSON or SSE, so that `burrow up` can bind each to the agent it went to
 * (`request-state-owners.ts`).
 *
 * The relay's answers pass untouched and almost all of them hand out no state, so none is parsed
 * unless its bytes hold `"requestState"`: each chunk is searched for it (and the few bytes across
 * the chunk before it). A JSON body is kept by reference until it ends (up to
 * `MAX_ANSWER_BYTES`) and parsed at its end only when it holds the name. An SSE stream is kept
 * only since its last event boundary (up to `MAX_KEPT_SSE_BYTES`); once a chunk holds the name,
 * or an event is longer, what was kept and what follows go through the SSE reader until it
 * stands between events again, and only the events holding the name are parsed. A state in an
 * SSE event is told to `onState` before the chunk that completes the event goes on; one in a
 * JSON body when the body ends, before the relay ends the agent's response (which an agent
 * reading it as JSON waits for). What cannot be read (a body or an event past the bound) is told
 * to `onUnread`: a state in it stays unbound, and the agent's retry presenting it is refused.
 */
import { isBodyProblem, isRecord, parseJsonRpcText, SseParser } from '@burrow/protocol'

/** Largest JSON body, or SSE event, read for states. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024
/**
 * Most an SSE stream keeps since its last event boundary before it reads its events as they go:
 * long events are read by the SSE reader (bounded itself) rather than kept.
 */
export const MAX_KEPT_SSE_BYTES = 64 * 1024
/**
 * What each chunk kept costs beyond its bytes: a server writing one byte at a time otherwise made
 * the bounds worth a hundred times more memory (a Buffer object per byte).
 */
export const KEPT_CHUNK_COST = 64

/** The member name a state is handed out under, as servers write it. */
const NAME = Buffer.from('"requestState"')
const decoder = new TextDecoder()

/** What an answer is, for reading its states. */
export type AnswerFormat = 'json' | 'sse'

/** Reads the states one answer hands out. */
export class AnswerStates {
  readonly #format: AnswerFormat
  readonly #onState: (state: string) => void
  readonly #onUnread: () => void
  /** JSON: the body so far; SSE: the chunks since the last event boundary. Null past the bound. */
  #kept: Buffer[] | null = []
  #keptBytes = 0
  /** The last bytes of the previous chunk, where the name may have begun. */
  #tail: Buffer | null = null
  /** JSON: the name was seen. */
  #named = false
  /** SSE: reading events, from a chunk that held the name until the next event boundary. */
  #sse: SseParser | null = null
  /** SSE: a chunk since the last event boundary held the name. */
  #namedEvent = false
  #unread = false

  constructor(format: AnswerFormat, onState: (state: string) => void, onUnread: () => void) {
    this.#format = format
    this.#onState = onState
    this.#onUnread = onUnread
  }

  /** True while SSE events are being read (for tests: a stream without states never is). */
  get reading(): boolean {
    return this.#sse !== null
  }

  /** What is kept now: bytes, and `KEPT_CHUNK_COST` for each chunk (for tests). */
  get held(): number {
    return this.#kept === null ? 0 : this.#keptBytes
  }

  /** The next chunk of the answer, before it goes on to the agent. */
  push(chunk: Buffer): void {
    const named = this.#holdsName(chunk)
    if (this.#format === 'json') this.#pushJson(chunk, named)
    else this.#pushSse(chunk, named)
  }

  /** The answer is complete (JSON: its body is parsed now, when it named a state). */
  end(): void {
    if (this.#format === 'json' && this.#named) {
      if (this.#kept === null) this.#cannotRead()
      else this.#states(decoder.decode(Buffer.concat(this.#kept)))
    }
    this.#kept = null
    this.#sse = null
  }

  #pushJson(chunk: Buffer, named: boolean): void {
    this.#named ||= named
    if (this.#kept === null) return
    this.#keptBytes += chunk.length + KEPT_CHUNK_COST
    if (this.#keptBytes > MAX_ANSWER_BYTES) this.#kept = null
    else this.#kept.push(chunk)
  }

  #pushSse(chunk: Buffer, named: boolean): void {
    this.#namedEvent ||= named
    if (this.#sse === null && named) {
      // Read from the last event boundary: what was kept since, then this chunk.
      this.#sse = new SseParser({ maxEventChars: MAX_ANSWER_BYTES })
      for (const kept of this.#kept ?? []) this.#events(kept)
      this.#kept = []
      this.#keptBytes = 0
    }
    if (this.#sse !== null) {
      this.#events(chunk)
      if (this.#sse.atBoundary) {
        this.#sse = null
        this.#namedEvent = false
      }
      return
    }
    if (endsEvent(chunk)) {
      this.#kept = []
      this.#keptBytes = 0
      this.#namedEvent = false
      return
    }
    this.#kept ??= []
    this.#kept.push(chunk)
    this.#keptBytes += chunk.length + KEPT_CHUNK_COST
    if (this.#keptBytes > MAX_KEPT_SSE_BYTES) {
      // An event this long is read as it goes (the reader drops it whole past the bound).
      this.#sse = new SseParser({ maxEventChars: MAX_ANSWER_BYTES })
      for (const kept of this.#kept) this.#events(kept)
      this.#kept = []
      this.#keptBytes = 0
    }
  }

  #events(chunk: Buffer): void {
    const parser = this.#sse!
    const dropped = parser.dropped
    const discarding = parser.discarding
    for (const event of parser.push(chunk)) {
      if (event.data.includes('"requestState"')) this.#states(event.data)
    }
    // An event past the bound is dropped whole: a state named anywhere in it goes unread.
    const unread = discarding || parser.dropped !== dropped || parser.discarding
    if (unread && this.#namedEvent) this.#cannotRead()
  }

  /** Tell the states the result messages of `text` hand out. */
  #states(text: string): void {
    const body = parseJsonRpcText(text)
    if (isBodyProblem(body)) return
    for (const m of body.messages) {
      if (m.kind !== 'response') continue
      const result: unknown = m.value.result
      if (isRecord(result) && typeof result.requestState === 'string')
        this.#onState(result.requestState)
    }
  }

  #cannotRead(): void {
    if (this.#unread) return
    this.#unread = true
    this.#onUnread()
  }

  /** Whether `chunk`, or the bytes across it and the chunk before, hold the name. */
  #holdsName(chunk: Buffer): boolean {
    let named = chunk.includes(NAME)
    const tail = this.#tail
    if (!named && tail !== null) {
      const head = chunk.subarray(0, NAME.length - 1)
      named = Buffer.concat([tail, head]).includes(NAME)
    }
    const from = Math.max(0, chunk.length - (NAME.length - 1))
    this.#tail =
      tail !== null && chunk.length < NAME.length - 1
        ? Buffer.concat([tail, chunk]).subarray(-(NAME.length - 1))
        : Buffer.from(chunk.subarray(from))
    return named
  }
}

/** Whether `chunk` ends an SSE event: it ends in a blank line (LF LF, CR CR, LF CR LF). */
function endsEvent(chunk: Buffer): boolean {
  const n = chunk.length
  if (n < 2) return false
  const last = chunk[n - 1]
  const before = chunk[n - 2]
  if (last === 0x0d) return before === 0x0d
  if (last !== 0x0a) return false
  return before === 0x0a || (before === 0x0d && n >= 3 && chunk[n - 3] === 0x0a)
}
