/**
 * An SSE event's `id:` and `event:` fields as a rewritten stream sends them: they are the
 * server's text as much as the data is (an agent keeps the id and sends it back as
 * `Last-Event-ID`), so where text is rewritten (forwarded redaction) they are rewritten too.
 * Found by a hostile review: a secret a server put in an event's id or name reached the agent as
 * sent while the data beside it was masked. An id carries over to the events after it: the last
 * one's rewrite is kept, so a long id sent once is not rewritten again for every small event.
 */
import type { SseEvent } from './sse-parser.js'

/** Line ends a field's line cannot hold: a rewrite that brings one gets a space in its place. */
const LINE_ENDS = /[\r\n]/g

/** Rewrites the fields of one stream's events. */
export class SseFieldRewriter {
  readonly #rewrite: ((text: string) => string | null) | null | undefined
  readonly #shapedBy: (() => unknown) | undefined
  #lastId: string | null = null
  #lastIdOut: string | null = null
  /** What the rewrites followed when the last id was rewritten (`shapedBy`). */
  #lastShape: unknown = undefined
  /** The last id `toWrite` let through (null: none yet). */
  #idWritten: string | null = null

  /**
   * `shapedBy`, when the rewrite's policy may change while the stream is open, says what it
   * follows now: the kept rewrite of a carried-over id is made again when that changes (a
   * pattern added after the id first passed masks it from the next event on).
   */
  constructor(
    rewrite: ((text: string) => string | null) | null | undefined,
    shapedBy?: () => unknown,
  ) {
    this.#rewrite = rewrite
    this.#shapedBy = shapedBy
  }

  /**
   * `event` as the stream writes it: `fields`, with its id left out when it is the one written
   * last. The agent's reader keeps the last id for the events after it (the SSE standard), and
   * the parser carries it over to each of them: written with every event, one long id and many
   * small events cost their product (a 500,000-character id and 400 events: 200 MB to the
   * agent, and the node held for seconds; a hostile review).
   */
  toWrite(event: SseEvent): SseEvent {
    const fields = this.fields(event)
    if (fields.id === null) return fields
    if (fields.id === this.#idWritten) return { ...fields, id: null }
    this.#idWritten = fields.id
    return fields
  }

  /** `event` with its id and name (unless the default `message`) rewritten. */
  fields(event: SseEvent): SseEvent {
    const rewrite = this.#rewrite
    if (!rewrite) return event
    let id: string | null = null
    if (event.id !== null && event.id !== '') {
      const shape = this.#shapedBy?.()
      if (event.id !== this.#lastId || shape !== this.#lastShape) {
        this.#lastId = event.id
        this.#lastShape = shape
        this.#lastIdOut = written(rewrite(event.id))
      }
      id = this.#lastIdOut
    }
    const name = event.event === 'message' ? null : written(rewrite(event.event))
    if (id === null && name === null) return event
    return { ...event, ...(id === null ? {} : { id }), ...(name === null ? {} : { event: name }) }
  }
}

function written(text: string | null): string | null {
  return text === null ? null : text.replace(LINE_ENDS, ' ')
}

/** `event` with its id and name given to `rewrite` (one event; a stream keeps a rewriter). */
export function rewrittenSseFields(
  event: SseEvent,
  rewrite: ((text: string) => string | null) | null | undefined,
): SseEvent {
  return new SseFieldRewriter(rewrite).fields(event)
}
