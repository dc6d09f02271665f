/**
 * What a request or response head may hold to cross the tunnel: a path of at most
 * `MAX_PATH_LENGTH` characters, at most `MAX_HEADER_PAIRS` headers, and a JSON encoding of at most
 * `MAX_META_BYTES`. The edge checks a public request against these before it forwards (and
 * refuses it with 414 or 431), `burrow up` checks a local server's response head before it sends
 * it, and the codec refuses anything beyond them, so nothing a stranger sends can make a peer
 * reject a frame.
 */
import {
  MAX_HEADER_PAIRS,
  MAX_META_BYTES,
  MAX_PATH_LENGTH,
  type HeaderPairs,
  type RequestHead,
  type ResponseHead,
} from './frame.js'

/** Why a head cannot cross the tunnel. */
export interface HeadProblem {
  /** `path`: the path is too long (HTTP 414); `headers`: too many or too large (HTTP 431). */
  readonly kind: 'path' | 'headers'
  /** What is wrong, for the refusal's reason. */
  readonly message: string
}

/** Room a head must leave for headers added on its way (one pair of at most `bytes`). */
export interface HeadReserve {
  readonly pairs: number
  readonly bytes: number
}

/**
 * Why `head` cannot be sent in an OPEN frame, or null when it can; with `reserve`, leaving that
 * room (burrowd adds a header when it forwards a request to the node holding its tunnel).
 */
export function requestHeadProblem(
  head: RequestHead,
  reserve: HeadReserve = { pairs: 0, bytes: 0 },
): HeadProblem | null {
  if (head.path.length > MAX_PATH_LENGTH) {
    return {
      kind: 'path',
      message: `the request path is ${head.path.length} characters long; at most ${MAX_PATH_LENGTH} are accepted`,
    }
  }
  return headersProblem(
    'request',
    head.headers,
    head.path.length + head.method.length + 16,
    () => requestMeta(head),
    reserve,
  )
}

/** Why `head` cannot be sent in a RESPONSE frame, or null when it can. */
export function responseHeadProblem(head: ResponseHead): HeadProblem | null {
  return headersProblem('response', head.headers, 16, () => responseMeta(head))
}

/** The JSON block an OPEN frame carries for `head` (the codec writes exactly this). */
export function requestMeta(head: RequestHead): string {
  return JSON.stringify({ m: head.method, p: head.path, h: head.headers })
}

/** The JSON block a RESPONSE frame carries for `head`. */
export function responseMeta(head: ResponseHead): string {
  return JSON.stringify({ s: head.status, h: head.headers })
}

function headersProblem(
  what: 'request' | 'response',
  headers: HeaderPairs,
  fixedBytes: number,
  meta: () => string,
  reserve: HeadReserve = { pairs: 0, bytes: 0 },
): HeadProblem | null {
  const maxPairs = MAX_HEADER_PAIRS - reserve.pairs
  const maxBytes = MAX_META_BYTES - reserve.bytes
  if (headers.length > maxPairs) {
    return {
      kind: 'headers',
      message: `the ${what} carries ${headers.length} headers; at most ${maxPairs} are accepted`,
    }
  }
  // JSON escaping at most sextuples a character (\u00XX): skip the exact size when even that fits.
  let chars = fixedBytes
  for (const [name, value] of headers) chars += name.length + value.length + 6
  if (chars * 6 <= maxBytes) return null
  const bytes = Buffer.byteLength(meta())
  if (bytes <= maxBytes) return null
  return {
    kind: 'headers',
    message: `the ${what}'s headers take ${bytes} bytes once encoded; at most ${maxBytes} are accepted`,
  }
}
