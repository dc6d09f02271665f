/**
 * An incremental reader of Server-Sent Events (the WHATWG `text/event-stream` format) for the
 * aggregator's HTTP client: feed it text as it arrives and it returns the complete events. Only
 * what MCP uses is kept: `data` (joined with newlines), `event` and `id`; comments and `retry` are
 * skipped. `readSseData` applies it to a whole response body.
 */

/** One dispatched event. */
export interface SseEvent {
  /** `message` unless the stream named another type. */
  readonly event: string
  readonly data: string
  readonly id: string | undefined
}

/** Splits a text stream into events. */
export class SseParser {
  #buffer = ''
  #data: string[] = []
  #event = ''
  #id: string | undefined

  /** Add text; returns the events it completed. */
  feed(text: string): SseEvent[] {
    this.#buffer += text
    const events: SseEvent[] = []
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer)
      // A lone CR at the end may be the first half of CRLF: wait for more text.
      if (!match || (match[0] === '\r' && match.index === this.#buffer.length - 1)) break
      const line = this.#buffer.slice(0, match.index)
      this.#buffer = this.#buffer.slice(match.index + match[0].length)
      const event = this.#line(line)
      if (event) events.push(event)
    }
    return events
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch()
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
    else if (field === 'id' && !value.includes('\0')) this.#id = value
    return undefined
  }

  #dispatch(): SseEvent | undefined {
    const data = this.#data
    const event = this.#event
    this.#data = []
    this.#event = ''
    if (data.length === 0) return undefined
    return { event: event || 'message', data: data.join('\n'), id: this.#id }
  }
}

/**
 * Read an SSE body to its end, calling `onData` with the data of each `message` event that has
 * some, and the bytes read since the previous call. Rejects when the body fails (a reset, an abort).
 */
export async function readSseData(
  body: AsyncIterable<Uint8Array>,
  onData: (data: string, bytes: number) => void,
): Promise<void> {
  const parser = new SseParser()
  const decoder = new TextDecoder()
  let bytes = 0
  for await (const chunk of body) {
    bytes += chunk.length
    for (const event of parser.feed(decoder.decode(chunk, { stream: true }))) {
      // Events without data are priming events (an id to resume from) or padding.
      if (event.event !== 'message' || event.data === '') continue
      onData(event.data, bytes)
      bytes = 0
    }
  }
}
