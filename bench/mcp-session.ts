// Opening an MCP session on a Streamable HTTP endpoint before load: `initialize`, then
// `notifications/initialized`; the session id and protocol version then ride on every call. Both
// bridges (Burrow's stdio front and supergateway) require this and may answer with SSE.
import type { CallTarget } from './load.js'
import { loopbackPool } from './loopback.js'

/** The MCP revision the benchmark speaks. */
export const PROTOCOL_VERSION = '2025-06-18'

const BASE_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const

/** Initialize a session at `url` and return the call target that uses it. */
export async function openMcpSession(url: string): Promise<CallTarget> {
  const target = new URL(url)
  const path = target.pathname + target.search
  const pool = loopbackPool(target.origin, 1)
  try {
    const init = await pool.request({
      path,
      method: 'POST',
      headers: BASE_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'burrow-bench', version: '1.0.0' },
        },
      }),
    })
    const text = await init.body.text()
    const session = init.headers['mcp-session-id']
    if (init.statusCode !== 200 || typeof session !== 'string' || !text.includes('"result"')) {
      throw new Error(
        `initialize at ${url} failed: HTTP ${init.statusCode}, session ${String(session)}: ${text.slice(0, 300)}`,
      )
    }
    const headers = {
      ...BASE_HEADERS,
      'mcp-session-id': session,
      'mcp-protocol-version': PROTOCOL_VERSION,
    }
    const ack = await pool.request({
      path,
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    const ackText = await ack.body.text()
    if (ack.statusCode !== 202 && ack.statusCode !== 200) {
      throw new Error(
        `notifications/initialized at ${url} failed: HTTP ${ack.statusCode}: ${ackText.slice(0, 300)}`,
      )
    }
    return { url, headers }
  } finally {
    await pool.close()
  }
}
