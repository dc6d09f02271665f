/**
 * The headers a 2026-07-28 request mirrors from its body (`Mcp-Method`, `Mcp-Name`,
 * `Mcp-Param-*`), and `MCP-Protocol-Version`, as the edge checks them before forwarding. The edge
 * judges a call by its body (policy, history, quotas), and a server may route by the headers: a
 * request whose headers name something else is not forwarded, and neither is one (of any
 * method) that sends any of them, `Mcp-Session-Id` or `Last-Event-ID` more than once. Node joins
 * a repeated field with ", " while the fields go to the local server one by one, and a server
 * reading the first (Go's `Header.Get`, Starlette's `get`) would run a tool the edge never judged: `Mcp-Name: delete_file` then `Mcp-Name: notes` read as
 * `delete_file, notes`, the name the body gave.
 */
import type { ServerResponse } from 'node:http'
import {
  JSONRPC_CODE,
  mirroredHeaderProblem,
  type JsonRpcBody,
  type RefusedId,
} from '@burrow/protocol'
import { sendRefusal } from '../http/send-refusal.js'

/**
 * True for a (lower-cased) header name MCP reads once: mirrored, the revision, the session, or
 * where a stream resumes. A server reading the first `Mcp-Session-Id` of two would serve a
 * session the edge never counted (it read "a, b", no session id at all).
 */
function readOnce(name: string): boolean {
  return (
    name === 'mcp-method' ||
    name === 'mcp-name' ||
    name === 'mcp-protocol-version' ||
    name === 'mcp-session-id' ||
    name === 'last-event-id' ||
    name.startsWith('mcp-param-')
  )
}

/** The first header MCP reads once that raw head `rawHeaders` names twice, or null. */
function repeatedMirror(rawHeaders: readonly string[]): string | null {
  const seen = new Set<string>()
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase()
    if (!readOnce(name)) continue
    if (seen.has(name)) return rawHeaders[i]!
    seen.add(name)
  }
  return null
}

/** The value of header `name` (lower-cased) in raw head `rawHeaders`, sent once; or undefined. */
function fieldOf(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === name) return rawHeaders[i + 1]
  return undefined
}

/** Why the edge will not forward a request with raw head `rawHeaders` (any method), or null. */
export function repeatedHeaderRefusal(rawHeaders: readonly string[]): string | null {
  const repeated = repeatedMirror(rawHeaders)
  return repeated === null
    ? null
    : `Header mismatch: the ${repeated} header is sent more than once; send it once`
}

/**
 * Why the edge will not forward `body` sent with raw head `rawHeaders`, or null: a header MCP
 * reads once named more than once (whatever the body), or an `Mcp-Method` or
 * `Mcp-Name` naming something other than the 2026-07-28 request of `body` does. A header left
 * out is the server's to refuse (a 2025 server never reads it).
 */
export function mirroredHeaderRefusal(
  body: JsonRpcBody,
  rawHeaders: readonly string[],
): string | null {
  const repeated = repeatedHeaderRefusal(rawHeaders)
  if (repeated !== null) return repeated
  const m = body.messages[0]
  if (body.batch || m?.kind !== 'request' || m.era !== 'modern') return null
  const name = fieldOf(rawHeaders, 'mcp-name')
  const sent = { 'mcp-method': fieldOf(rawHeaders, 'mcp-method') ?? m.method, 'mcp-name': name }
  // Without Mcp-Name only the method is compared (no params: no name to compare).
  const problem = mirroredHeaderProblem(
    sent,
    m.method,
    name === undefined ? undefined : m.value.params,
  )
  return problem === null ? null : `Header mismatch: ${problem}`
}

/** Refuse a request over its MCP headers: 400, -32020, naming `id` (the refused ids, or null). */
export function sendHeaderMismatch(
  res: ServerResponse,
  reason: string,
  id: RefusedId | readonly RefusedId[],
): void {
  sendRefusal(res, 'invalid_request', 'Invalid Request', reason, {
    id,
    jsonRpcCode: JSONRPC_CODE.headerMismatch,
  })
}
