/**
 * Reads a Server-Sent Events byte stream incrementally (WHATWG event-stream rules: LF, CR or CRLF
 * line ends, `data:` lines joined, comments ignored) and hands each complete event to a callback
 * as soon as its blank line arrives, so the inspector shows JSON-RPC messages while a stream is
 * still open. A line that never ends is given up past a bound instead of growing memory.
 */

/** One event of the stream. */
export interface SseEvent {
  /** The `id:` field, or null. */
  readonly id: string | null
  /** The `event:` field, or null (which means "message"). */
  readonly event: string | null
  /** The `data:` lines joined with LF. */
  readonly data: string
}

/** Decodes event-stream bytes into events. */
export class SseMessageDecoder {
  readonly #onEvent: (event: SseEvent) => void
  readonly #maxLineChars: number
  readonly #decoder = new TextDecoder('utf-8')
  #buffer = ''
  #skipLf = false
  #overflowed = false
  #id: string | null = null
  #event: string | null = null
  #data: string[] = []

  /** `maxLineChars` bounds one unfinished line (default 4 Mi characters). */
  constructor(onEvent: (event: SseEvent) => void, maxLineChars = 4 * 1024 * 1024) {
    this.#onEvent = onEvent
    this.#maxLineChars = maxLineChars
  }

  /** True once an over-long line was dropped. */
  get overflowed(): boolean {
    return this.#overflowed
  }

  /** Feed the next bytes. */
  push(chunk: Uint8Array): void {
    this.#feed(this.#decoder.decode(chunk, { stream: true }))
  }

  /** The stream ended: an event without its final blank line is dropped, as browsers do. */
  end(): void {
    this.#feed(this.#decoder.decode())
  }

  #feed(text: string): void {
    let start = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      if (c === 10 && this.#skipLf && i === start && this.#buffer === '') {
        // The LF of a CRLF split across chunks.
        this.#skipLf = false
        start = i + 1
        continue
      }
      this.#line(this.#buffer + text.slice(start, i))
      this.#buffer = ''
      this.#skipLf = false
      if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++
        else if (i + 1 === text.length) this.#skipLf = true
      }
      start = i + 1
    }
    if (start < text.length) {
      this.#skipLf = false
      this.#buffer += text.slice(start)
      if (this.#buffer.length > this.#maxLineChars) {
        this.#overflowed = true
        this.#buffer = ''
        this.#data = []
      }
    }
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#data.length > 0) {
        this.#onEvent({ id: this.#id, event: this.#event, data: this.#data.join('\n') })
      }
      this.#event = null
      this.#data = []
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
    else if (field === 'id' && !value.includes('\0')) this.#id = value
  }
}
