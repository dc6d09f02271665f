/**
 * What the stdio backend writes to its server, through the real front and a real stdio server
 * (server-everything, on the official SDK): JSON-RPC's own members only. Found by hostile review:
 * a request carrying a member of its own (`"foo": 1`) was written as sent, the SDK's strict
 * reading dropped it as unreadable without an answer, and the agent waited for ever.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { everythingServer } from '../helpers/fixtures.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'
import { initialize } from '../helpers/raw-mcp.js'

describe('StdioBackend, what it writes to the server', { timeout: 60_000 }, () => {
  after(closeAllFronts)

  it('leaves out members JSON-RPC does not define, so the call is answered', async () => {
    const served = await serveStdioFront({ ...everythingServer })
    const session = await initialize(served.url, '2025-03-26')
    const params = { name: 'echo', arguments: { message: 'hi' } }
    const res = await session.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params, foo: 1 })
    assert.equal(res.status, 200)
    const answer = (await res.json()) as { id: unknown; result: { content: { text: string }[] } }
    assert.equal(answer.id, 1)
    assert.equal(answer.result.content[0]?.text, 'Echo: hi')
  })
})
