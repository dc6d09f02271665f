/**
 * Forwarded redaction of a tunnelled answer's head: with `redaction.forwarded`, the values of the
 * header fields a local server sends are masked as its answer's body is (redactor.ts,
 * `redactFields`), except the fields the exchange is framed, decoded, resumed or authenticated by,
 * which the edge or the agent must read as sent (docs/decisions.md, "Response headers are
 * redacted, except what frames the exchange"). A field whose name holds a secret is left out
 * (a name cannot hold a mask), unless it is one of those fields by its exact name.
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

/** CORS's own response fields (the Fetch standard's, and Private Network Access'). */
const CORS_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-private-network',
  'access-control-expose-headers',
  'access-control-max-age',
])

/**
 * Whether the field `name` (lower-case) of an answer is forwarded without its name scanned: the
 * fields above by their exact names. Any other name is scanned, one beginning `access-control-`
 * too (its value is still forwarded unmasked), and a field whose name holds a secret is left out.
 */
export function unscannedResponseName(name: string): boolean {
  return (
    UNREDACTED_RESPONSE_HEADERS.has(name) ||
    HOP_BY_HOP_HEADERS.has(name) ||
    CORS_RESPONSE_HEADERS.has(name)
  )
}

/**
 * `headers` as the agent may get them from `redactor` (itself when nothing is masked): a field
 * whose name holds a secret the owner's redaction finds is left out. Values come
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
  const fields = read ?? headers
  const out = redactor.redactFields(fields, unredactedResponseHeader, unscannedResponseName)
  if (out === fields) return headers
  const agent: (readonly [string, string])[] = []
  out.forEach((field, i) => {
    if (field === null) return
    if (field === fields[i]) return void agent.push(headers[i]!)
    const decoded = fields[i]![1] !== headers[i]![1]
    agent.push([field[0], decoded ? Buffer.from(field[1], 'utf8').toString('latin1') : field[1]])
  })
  return agent
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
