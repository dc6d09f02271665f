/**
 * Bytes of a request's or response's head, as the bandwidth quota counts them: the start line and
 * each field as HTTP/1.1 writes it (`name: value` and CRLF). Heads cross the tunnel as bodies do,
 * and an agent and a local server in league could otherwise move data in them uncounted.
 */
import type { HeaderPairs } from '@burrow/protocol'

/** `METHOD path HTTP/1.1` and the line ends around it and the head. */
const REQUEST_LINE_EXTRA = 14
/** `HTTP/1.1 200 ` with the line ends around it and the head (the reason phrase aside). */
const STATUS_LINE_EXTRA = 17
/** `: ` and CRLF of a field. */
const FIELD_EXTRA = 4

/** The head of a request as the agent sent it; `raw` is node's rawHeaders list (Latin-1). */
export function requestHeadBytes(method: string, path: string, raw: readonly string[]): number {
  let n = method.length + path.length + REQUEST_LINE_EXTRA
  for (const field of raw) n += field.length
  return n + (raw.length / 2) * FIELD_EXTRA
}

/**
 * The head of a response as the local server sent it, the fields the edge adds aside (values beyond
 * Latin-1 go as UTF-8).
 */
export function responseHeadBytes(headers: HeaderPairs): number {
  let n = STATUS_LINE_EXTRA
  for (const [name, value] of headers) n += name.length + Buffer.byteLength(value) + FIELD_EXTRA
  return n
}
