/**
 * An SSE event's `id:` and `event:` fields as a rewritten stream sends them: they are the
 * server's text as much as the data is (an agent keeps the id and sends it back as
 * `Last-Event-ID`), so where text is rewritten (forwarded redaction) they are rewritten too.
 * Found by a hostile review: a secret a server put in an event's id or name reached the agent as
 * sent while the data beside it was masked.
 */
import type { SseEvent } from './sse-parser.js'

/** Line ends a field's line cannot hold: a rewrite that brings one gets a space in its place. */
const LINE_ENDS = /[\r\n]/g

/** `event` with its id and name (unless the default `message`) given to `rewrite`. */
export function rewrittenSseFields(
  event: SseEvent,
  rewrite: ((text: string) => string | null) | null | undefined,
): SseEvent {
  if (!rewrite) return event
  const id = event.id === null || event.id === '' ? null : rewrite(event.id)
  const name = event.event === 'message' ? null : rewrite(event.event)
  if (id === null && name === null) return event
  return {
    ...event,
    ...(id === null ? {} : { id: id.replace(LINE_ENDS, ' ') }),
    ...(name === null ? {} : { event: name.replace(LINE_ENDS, ' ') }),
  }
}
