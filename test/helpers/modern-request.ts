// One 2026-07-28 request as an agent pinned to that revision sends it to a public tunnel URL: the
// body's `_meta` names the revision, the client and its capabilities, and the headers mirror the
// method and name (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
import { publicFetch } from './public-fetch.js'

/** The revision these requests speak. */
export const MODERN = '2026-07-28'

/** POST one 2026-07-28 request to `url`; `header` overrides MCP-Protocol-Version. */
export function sendModern(
  url: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  options: { signal?: AbortSignal; header?: string } = {},
): Promise<Response> {
  const name = params.name
  return publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': options.header ?? MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
        ...params,
      },
    }),
    ...(options.signal ? { signal: options.signal } : {}),
  })
}
