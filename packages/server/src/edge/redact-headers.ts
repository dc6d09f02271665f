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

/** `headers` as the agent may get them from `redactor` (itself when nothing is masked). */
export function redactResponseHeaders(
  redactor: Redactor | null,
  headers: HeaderPairs,
): HeaderPairs {
  if (redactor === null || headers.length === 0) return headers
  return redactor.redactFields(headers, unredactedResponseHeader)
}
