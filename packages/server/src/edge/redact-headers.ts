/**
 * Forwarded redaction of a tunnelled answer's head: with `redaction.forwarded`, the values of the
 * header fields a local server sends are masked as its answer's body is (redactor.ts,
 * `redactFields`), except the fields the exchange is framed, decoded, resumed or authenticated by,
 * which the edge or the agent must read as sent (docs/decisions.md, "Response headers are
 * redacted, except what frames the exchange").
 */
import { HOP_BY_HOP_HEADERS, type HeaderPairs } from '@burrow/protocol'
import type { Redactor } from '../governance/redactor.js'

/**
 * Response headers never masked: the body's framing and type (the edge and the agent read the
 * answer by them), the MCP session and revision (the agent sends the session id back as it came:
 * one that looks like a token, masked, would end the session), cookies (sent back the same way),
 * the authentication challenge (`Bearer resource_metadata=…` reads as a bearer token to the
 * detectors, and an agent finds the server's OAuth metadata by it), and CORS (a browser agent
 * reads the answer by them). Hop-by-hop fields never reach the agent, and `Connection` names
 * which ones.
 */
export const UNREDACTED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'content-type',
  'content-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'set-cookie',
  'www-authenticate',
])

/** Whether the field `name` (lower-case) of an answer is forwarded unmasked. */
export function unredactedResponseHeader(name: string): boolean {
  return (
    UNREDACTED_RESPONSE_HEADERS.has(name) ||
    HOP_BY_HOP_HEADERS.has(name) ||
    name.startsWith('access-control-')
  )
}

/**
 * `headers` as the agent may get them from `redactor` (itself when nothing is masked). Values come
 * as the local server's bytes, one character each (as `burrow up`'s HTTP client reads them); one
 * whose bytes are UTF-8 is scanned as that text, as bodies are, so that a pattern holding a
 * character past ASCII matches it, and a masked one is handed on as its UTF-8 bytes again.
 */
export function redactResponseHeaders(
  redactor: Redactor | null,
  headers: HeaderPairs,
): HeaderPairs {
  if (redactor === null || headers.length === 0) return headers
  let read: [string, string][] | null = null
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i]!
    const text = utf8Text(value)
    if (text === null) continue
    read ??= headers.map(([n, v]) => [n, v])
    read[i] = [name, text]
  }
  if (read === null) return redactor.redactFields(headers, unredactedResponseHeader)
  const out = redactor.redactFields(read, unredactedResponseHeader)
  if (out === read) return headers
  return out.map((field, i): readonly [string, string] => {
    if (field === read[i]) return headers[i]!
    const decoded = read[i]![1] !== headers[i]![1]
    return [field[0], decoded ? Buffer.from(field[1], 'utf8').toString('latin1') : field[1]]
  })
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The text whose UTF-8 bytes `value` holds, one character a byte; null for a value of ASCII only,
 * one holding a character past U+00FF (not bytes), or bytes that are not UTF-8.
 */
function utf8Text(value: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (!/[\x80-\xff]/.test(value) || /[^\x00-\xff]/.test(value)) return null
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'))
  } catch {
    return null
  }
}
