/**
 * Which requests of an agent's POST the local server's SSE answer answered, read as the answer
 * passes to the agent, so that the relay can answer the others itself when the stream ends or
 * breaks (`HttpRelay`). An SDK agent reading such a stream waits for its answer until its own
 * timeout, unless it can resume the stream: after an event that carried an id (the spec's
 * priming event) it asks again with `GET` and `Last-Event-ID`, and the server may answer there,
 * so such a stream is left to the agent.
 *
 * Answers are matched as agents match them (`answerKey`). Events are read only until every
 * request was answered (the answer ends the stream, as the spec wants); an event longer than
 * `MAX_WATCHED_EVENT_CHARS` is taken for the answer unread, and the rest of the stream passes
 * unwatched: a large answer is not read once more here.
 */
import {
  answerKey,
  isBodyProblem,
  parseJsonRpcText,
  refusalIdsOf,
  SseParser,
  type JsonRpcId,
  type SseEvent,
} from '@burrow/protocol'

/** Longest event read; a longer one is taken for the answer. */
export const MAX_WATCHED_EVENT_CHARS = 64 * 1024

/** The request ids of an agent's POST body (none for notifications and answers). */
export function requestIdsOf(body: Uint8Array): JsonRpcId[] {
  const ids = refusalIdsOf(body)
  const all = Array.isArray(ids) ? ids : [ids]
  return all.filter((id): id is JsonRpcId => typeof id === 'string' || typeof id === 'number')
}

/** What the end of an SSE answer leaves unanswered. */
export interface Unanswered {
  /** The requests the stream never answered. */
  readonly ids: readonly JsonRpcId[]
  /** True when the stream stopped inside an event: what is written next must start a new one. */
  readonly midEvent: boolean
}

/** Watches one SSE answer for the answers to its POST's requests. */
export class StreamedAnswers {
  /** The requests not answered yet, by `answerKey`. */
  readonly #waiting = new Map<string, JsonRpcId>()
  /** Null once nothing is left to watch. */
  #parser: SseParser | null = new SseParser({ maxEventChars: MAX_WATCHED_EVENT_CHARS })
  /** An event carried an id: the agent can resume the stream. */
  #resumable = false

  constructor(ids: readonly JsonRpcId[]) {
    for (const id of ids) this.#waiting.set(answerKey(id), id)
    if (this.#waiting.size === 0) this.#parser = null
  }

  /** The next chunk of the answer. */
  push(chunk: Uint8Array): void {
    const parser = this.#parser
    if (parser === null) return
    this.#read(parser.push(chunk))
    // An event too long to watch may be the answer: it is not read.
    if (parser.discarding || parser.dropped > 0) this.#parser = null
  }

  /**
   * The stream ended or broke: the requests it left unanswered, none when the agent can resume
   * it. Watching stops.
   */
  end(): Unanswered {
    const parser = this.#parser
    this.#parser = null
    if (parser === null || this.#resumable) return { ids: [], midEvent: false }
    const midEvent = !parser.atBoundary
    // An event without its blank line is dropped, as agents' readers drop it.
    parser.end()
    return { ids: [...this.#waiting.values()], midEvent }
  }

  #read(events: readonly SseEvent[]): void {
    for (const event of events) {
      if (event.id !== null && event.id !== '') this.#resumable = true
      if (event.event !== 'message' || event.data === '') continue
      const body = parseJsonRpcText(event.data)
      if (isBodyProblem(body)) continue
      for (const m of body.messages) {
        if (m.kind === 'response' && m.id !== null) this.#waiting.delete(answerKey(m.id))
      }
    }
    if (this.#waiting.size === 0 || this.#resumable) this.#parser = null
  }
}
