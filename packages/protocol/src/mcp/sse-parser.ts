/**
 * The one Server-Sent Events reader (WHATWG `text/event-stream`): feed it bytes as they arrive and
 * it returns the events each chunk completed. LF, CR and CRLF line ends (split across chunks
 * too), `data:` lines joined with LF, `event:`, `id:` and an event's `retry:` kept, comments
 * skipped (and a `retry:` in an event without data, which is never dispatched). What a client
 * resumes a stream with is kept as WHATWG's EventSource keeps it, events without data included:
 * `lastEventId` (taken at each event's blank line) and `reconnectionTime` (the last `retry:`).
 * Bounded: an event whose lines and data pass `maxEventChars` is dropped whole (and counted)
 * rather than held, so a stream that never ends a line cannot grow memory. `heldChars` says what
 * it holds now, and `discard` drops the event being read (for callers with a bound across
 * streams).
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `event:` field; `message` when the stream named none. */
  readonly event: string
  /** The `data:` lines joined with LF. */
  readonly data: string
  /** The last `id:` seen on the stream (it carries over to later events), or null. */
  readonly id: string | null
  /** The event's `retry:` field (ASCII digits: the reconnection time in ms), when it had one. */
  readonly retry?: string
}

/** Options of `new SseParser`. */
export interface SseParserOptions {
  /** Largest event (its lines and data, in characters) kept; default 4 Mi. */
  readonly maxEventChars?: number
}

const LF = 10
const CR = 13

/**
 * What each piece held costs beyond its characters, counted as characters: a piece of a line
 * (a string joined to the unfinished line) or a `data:` line kept. A stream sent one byte per
 * chunk, or in one-character lines, otherwise held some 40 bytes per character it was counted
 * for, and the bounds on what is held (this parser's, and the edge's across answers) were worth
 * thirty times more (found by a hostile review).
 */
export const SSE_PIECE_COST = 32

/** Splits an event stream into events. */
export class SseParser {
  readonly #max: number
  readonly #decoder = new TextDecoder('utf-8')
  #buffer = ''
  /** Pieces the unfinished line was joined from. */
  #pieces = 0
  #skipLf = false
  #data: string[] = []
  #dataChars = 0
  #event = ''
  #id: string | null = null
  #retry: string | null = null
  #lastEventId: string | null = null
  #reconnectionTime: number | null = null
  /** Dropping the rest of an oversized event until its blank line. */
  #discarding = false
  #dropped = 0

  constructor(opts: SseParserOptions = {}) {
    this.#max = opts.maxEventChars ?? 4 * 1024 * 1024
  }

  /** Events dropped because they passed the bound. */
  get dropped(): number {
    return this.#dropped
  }

  /** True while the rest of an event past the bound is being skipped. */
  get discarding(): boolean {
    return this.#discarding
  }

  /**
   * The id of the last event that ended (its blank line read), with or without data: what a
   * client sends as `Last-Event-ID` to resume the stream. Null before any id.
   */
  get lastEventId(): string | null {
    return this.#lastEventId
  }

  /** The last `retry:` field read (ms), in any event: the server's reconnection time. */
  get reconnectionTime(): number | null {
    return this.#reconnectionTime
  }

  /**
   * Characters held now: the unfinished line and the data of the event being read, with
   * `SSE_PIECE_COST` for each piece of them.
   */
  get heldChars(): number {
    return this.#buffer.length + this.#pieces * SSE_PIECE_COST + this.#dataChars
  }

  /**
   * True between events: no line, field or data of an event is held (the last id, which carries
   * over, aside).
   */
  get atBoundary(): boolean {
    return (
      this.#buffer === '' &&
      this.#data.length === 0 &&
      this.#event === '' &&
      this.#retry === null &&
      !this.#discarding
    )
  }

  /** Drop the event being read, as if it had passed the bound: the rest of it is skipped. */
  discard(): void {
    this.#overflow()
  }

  /** Feed the next bytes; returns the events they completed. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.pushText(this.#decoder.decode(chunk, { stream: true }))
  }

  /** Feed decoded text (for callers that already hold strings). */
  pushText(text: string): SseEvent[] {
    const out: SseEvent[] = []
    let start = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c !== LF && c !== CR) continue
      if (c === LF && this.#skipLf && i === start && this.#buffer === '') {
        // The LF of a CRLF split across chunks.
        this.#skipLf = false
        start = i + 1
        continue
      }
      const line = this.#buffer === '' ? text.slice(start, i) : this.#buffer + text.slice(start, i)
      this.#buffer = ''
      this.#pieces = 0
      this.#skipLf = false
      this.#line(line, out)
      if (c === CR) {
        if (text.charCodeAt(i + 1) === LF) i++
        else if (i + 1 === text.length) this.#skipLf = true
      }
      start = i + 1
    }
    if (start < text.length) {
      this.#skipLf = false
      this.#buffer += text.slice(start)
      this.#pieces++
      if (this.heldChars > this.#max) this.#overflow()
    }
    return out
  }

  /** The stream ended: an event without its final blank line is dropped, as browsers do. */
  end(): SseEvent[] {
    const out = this.pushText(this.#decoder.decode())
    this.#buffer = ''
    this.#pieces = 0
    this.#data = []
    this.#dataChars = 0
    return out
  }

  #overflow(): void {
    if (!this.#discarding) this.#dropped++
    this.#discarding = true
    this.#buffer = ''
    this.#pieces = 0
    this.#data = []
    this.#dataChars = 0
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.#lastEventId = this.#id
      if (this.#discarding) this.#discarding = false
      else if (this.#data.length > 0) {
        const event = { event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id }
        out.push(this.#retry === null ? event : { ...event, retry: this.#retry })
      }
      this.#event = ''
      this.#retry = null
      this.#data = []
      this.#dataChars = 0
      return
    }
    if (this.#discarding || line.charCodeAt(0) === 58 /* : */) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') {
      this.#dataChars += value.length + 1 + SSE_PIECE_COST
      if (this.#dataChars > this.#max) return this.#overflow()
      this.#data.push(value)
    } else if (field === 'event') this.#event = value
    else if (field === 'id' && !value.includes('\0')) this.#id = value
    else if (field === 'retry' && /^[0-9]{1,10}$/.test(value)) {
      this.#retry = value
      this.#reconnectionTime = Number(value)
    }
  }
}
