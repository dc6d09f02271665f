/**
 * Writing SSE events as a rewritten stream sends them: every field on a line of its own, with
 * the characters some clients take as line ends kept out of every line.
 */
import type { SseEvent } from './sse-parser.js'

/**
 * An SSE event as text: `id:`, `event:` (unless `message`), `retry:`, one `data:` line per line,
 * blank line.
 */
export function formatSseEvent(event: SseEvent): string {
  let text = ''
  // Some clients split lines on more than CR and LF (Python's str.splitlines, as httpx-sse did
  // before 0.4.2): an id or event name holding such a character is left out, and in data it is
  // written as a JSON escape, so that no field can start a line of its own there.
  if (event.id !== null && !SPLITS_LINES.test(event.id)) text += `id: ${event.id}\n`
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`
  if (event.event !== 'message' && !SPLITS_LINES.test(event.event)) {
    text += `event: ${event.event}\n`
  }
  for (const line of escapeLineSplits(event.data).split('\n')) text += `data: ${line}\n`
  return `${text}\n`
}

/** Characters besides CR and LF that some SSE clients take as line ends. */
// eslint-disable-next-line no-control-regex -- these control characters are what it looks for
const SPLITS_LINES = /[\v\f\x1c-\x1e\x85\u2028\u2029]/
const SPLITS_ALL = new RegExp(SPLITS_LINES.source, 'g')
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/**
 * `text` with the characters some clients take as line ends written as JSON escapes. In valid
 * JSON they can only be inside strings, where the escape is the same value; raw controls make
 * JSON invalid, and escaped they make it valid: so a message is checked as it is escaped, and
 * what reaches the agent is what was checked. Data that is not JSON shows the escapes as text.
 */
export function escapeLineSplits(text: string): string {
  return SPLITS_LINES.test(text) ? text.replace(SPLITS_ALL, escapeChar) : text
}

/**
 * An empty comment: what an idle rewritten stream sends in place of the server's keep-alive. No
 * blank line after it: some readers dispatch an empty event on every blank line once an id was
 * seen.
 */
export const KEEP_ALIVE = new TextEncoder().encode(':\n')
