/**
 * Whether the edge can read an answer's messages (to redact it, filter listings, pin tools), and
 * why not. The edge reads answers as UTF-8: an answer in a charset that writes ASCII otherwise
 * (UTF-16, UTF-32, UTF-7, EBCDIC) would pass unread, a secret in it whole to an agent reading it
 * as labelled (found by a review: an error page in UTF-16 passed forwarded redaction).
 */
import type { ResponseHead, ResponseKind } from '@burrow/protocol'

/**
 * Charsets that write ASCII as ASCII, so that what the edge reads as UTF-8 holds every ASCII
 * secret as the agent reads it: UTF-8, ASCII, the ISO 8859 and Windows single-byte sets, KOI8.
 */
const ASCII_COMPATIBLE =
  /^(?:utf-?8|(?:us-)?ascii|iso[-_]?8859-\d{1,2}|latin-?1|l1|windows-12\d\d|cp12\d\d|koi8-[ru])$/i

/** The charsets a content type names (unquoted, lower-cased): one, unless it is repeated. */
export function charsetsOf(contentType: string | undefined): string[] {
  const charsets: string[] = []
  for (const param of contentType?.split(';').slice(1) ?? []) {
    const eq = param.indexOf('=')
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue
    charsets.push(
      param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase(),
    )
  }
  return charsets
}

/** Why the edge cannot read an answer's messages; `asText` when its bytes are readable as text. */
interface Unreadable {
  readonly why: string
  readonly asText: boolean
  /**
   * True when an agent may still read messages from it: a redirect it follows, a JSON or SSE
   * answer it decompresses, a type its SDK takes for JSON or SSE (they test `includes`).
   */
  readonly agentsRead: boolean
}

/** Whether SDKs testing a content type with `includes` would take it for JSON or SSE. */
function namesMessages(contentType: string | undefined): boolean {
  const type = contentType?.toLowerCase() ?? ''
  return type.includes('json') || type.includes('event-stream')
}

/**
 * Why the edge cannot read an answer's messages, or null when it can: a content coding other than
 * identity, more than one content type, a charset UTF-8 misreads, a redirect, or a successful
 * answer with a body that is neither JSON nor SSE.
 */
export function unreadableAnswer(
  head: ResponseHead,
  kind: ResponseKind,
  contentType: string | undefined,
  empty: boolean,
): Unreadable | null {
  let types = 0
  for (const [n, v] of head.headers) {
    const name = n.toLowerCase()
    if (name === 'content-type') types++
    if (name !== 'content-encoding') continue
    const coding = v.trim().toLowerCase()
    if (coding !== '' && coding !== 'identity') {
      return {
        why: `is compressed (content-encoding: ${coding.slice(0, 40)})`,
        asText: false,
        agentsRead: kind !== 'other' || namesMessages(contentType),
      }
    }
  }
  if (types > 1) return { why: `carries ${types} content types`, asText: true, agentsRead: true }
  const charset = charsetsOf(contentType).find((c) => !ASCII_COMPATIBLE.test(c))
  if (charset !== undefined) {
    const named = JSON.stringify(charset.slice(0, 40))
    return { why: `is in the charset ${named}`, asText: false, agentsRead: true }
  }
  // Some SDKs look for "text/event-stream" anywhere in the type, and would read SSE where the
  // edge reads JSON.
  if (kind === 'json' && contentType?.toLowerCase().includes('event-stream')) {
    const type = JSON.stringify(contentType.slice(0, 80))
    return { why: `is labelled both JSON and SSE (${type})`, asText: false, agentsRead: true }
  }
  if (head.status >= 300 && head.status < 400) {
    return { why: `is a redirect (status ${head.status})`, asText: true, agentsRead: true }
  }
  const bodiless = empty || head.status === 202 || head.status === 204
  if (kind === 'other' && head.status >= 200 && head.status < 300 && !bodiless) {
    const type = JSON.stringify((contentType ?? 'no content type').slice(0, 80))
    return { why: `is sent as ${type}`, asText: true, agentsRead: namesMessages(contentType) }
  }
  return null
}
