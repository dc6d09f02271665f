/**
 * What the edge derives from a POST body classified by @burrow/protocol's reader: how many tool
 * calls it makes (requests only: a notification is not a call and is never counted), whether it
 * opens a session, and which bodies it refuses to forward (invalid messages, batches the
 * agent's protocol revision does not allow or that hide an `initialize`).
 */
import {
  BATCHING_PROTOCOL_VERSIONS,
  DEFAULT_PROTOCOL_VERSION,
  type ClassifiedMessage,
  type JsonRpcBody,
} from '@burrow/protocol'

/** The number of `tools/call` requests in `body`. */
export function toolCallCount(body: JsonRpcBody | null): number {
  let count = 0
  for (const m of body?.messages ?? [])
    if (m.kind === 'request' && m.method === 'tools/call') count++
  return count
}

/** True for a single `initialize` request: the start of a new MCP session, whatever its headers. */
export function isInitialize(body: JsonRpcBody | null): boolean {
  const m = body?.messages[0]
  return body !== null && !body.batch && m?.kind === 'request' && m.method === 'initialize'
}

/**
 * True when `body` holds a request of the sessionless era (MCP 2026-07-28: naming that revision in
 * its `_meta`, or `server/discover`), whatever its headers say.
 */
export function isSessionless(body: JsonRpcBody | null): boolean {
  return body !== null && body.messages.some((m) => m.kind === 'request' && m.era === 'modern')
}

/** The requests of `body` (what call history records). */
export function requestsOf(
  body: JsonRpcBody | null,
): Extract<ClassifiedMessage, { kind: 'request' }>[] {
  const out: Extract<ClassifiedMessage, { kind: 'request' }>[] = []
  for (const m of body?.messages ?? []) if (m.kind === 'request') out.push(m)
  return out
}

/**
 * Why the edge will not forward `body`, sent with `protocolHeader` (`MCP-Protocol-Version`), or
 * null. A message that is not valid JSON-RPC would be refused by the server anyway, and the edge
 * cannot count what it cannot read; nor does it forward a `tools/call` (or another call that
 * names a tool, prompt or resource) sent as a notification, which it does not count; batches exist only in MCP 2025-03-26 (and 2024-11-05), and
 * an `initialize` is never part of one.
 */
export function bodyRefusal(body: JsonRpcBody, protocolHeader: string | undefined): string | null {
  for (const m of body.messages) {
    if (m.kind === 'invalid') return `invalid JSON-RPC message: ${m.problem}`
    // A call sent without an id is not counted, so it is not forwarded either.
    if (m.kind === 'notification' && m.target !== null)
      return `${m.method} is a request: it needs an id`
  }
  if (!body.batch) return null
  const version = protocolHeader ?? DEFAULT_PROTOCOL_VERSION
  if (!BATCHING_PROTOCOL_VERSIONS.has(version)) {
    return `JSON-RPC batches are not part of MCP ${version} (they were removed in 2025-06-18); send one message per request`
  }
  for (const m of body.messages) {
    if (m.kind === 'request' && m.method === 'initialize')
      return 'an initialize request must not be part of a JSON-RPC batch'
    // A 2026-07-28 message says its revision itself, whatever the header claims: never batched.
    if (m.kind !== 'response' && m.kind !== 'invalid' && m.era === 'modern')
      return 'MCP 2026-07-28 sends one message per request, never a JSON-RPC batch'
  }
  return null
}
