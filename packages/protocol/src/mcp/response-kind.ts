/** The ways a response to an MCP POST or GET carries its JSON-RPC messages. */

/** How a response carries its messages. */
export type ResponseKind = 'json' | 'sse' | 'other'

/** The kind of a response with `contentType`. */
export function responseKind(contentType: string | undefined): ResponseKind {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (type === 'application/json') return 'json'
  if (type === 'text/event-stream') return 'sse'
  return 'other'
}
