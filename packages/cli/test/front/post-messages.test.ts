/**
 * What the front refuses in a POST before any server sees it, through the real front and a real
 * stdio server (server-everything, on the official SDK): a request whose `_meta` the MCP SDKs
 * cannot read (a progress token that is neither a string nor a number, `_meta` that is no object)
 * is answered with the envelope carrying its id. Found by hostile review: such a request was
 * passed on, the server's SDK dropped it as unreadable without a word, and the agent waited for
 * an answer that never came.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { everythingServer } from '../helpers/fixtures.js'
import { closeAllFronts, serveStdioFront } from '../helpers/serve-front.js'
import { initialize } from '../helpers/raw-mcp.js'

describe('POST messages the front refuses', { timeout: 60_000 }, () => {
  after(closeAllFronts)

  it('answers a request with an unreadable _meta with its id, and serves the next', async () => {
    const served = await serveStdioFront({ ...everythingServer })
    const session = await initialize(served.url, '2025-03-26')
    const call = (id: number, meta: unknown) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi' }, _meta: meta },
    })
    const refused = [
      call(1, { progressToken: null }),
      call(2, { progressToken: {} }),
      call(3, { progressToken: [1] }),
      call(4, []),
      call(5, 'x'),
      call(9, { 'io.modelcontextprotocol/related-task': 5 }),
      call(10, { 'io.modelcontextprotocol/related-task': { taskId: 1 } }),
      [call(6, { progressToken: true }), { jsonrpc: '2.0', id: 7, method: 'ping' }],
    ]
    for (const body of refused) {
      const res = await session.post(body)
      assert.equal(res.status, 400)
      const answer: unknown = await res.json()
      const ids = Array.isArray(body) ? body.map((m) => m.id) : [body.id]
      const answers = (Array.isArray(answer) ? answer : [answer]) as {
        id: unknown
        error: { code: number; message: string }
      }[]
      assert.deepEqual(
        answers.map((a) => a.id),
        ids,
      )
      assert.equal(answers[0]!.error.code, -32600)
      assert.match(answers[0]!.error.message, /_meta/)
    }
    const res = await session.post(call(8, { progressToken: 'p' }))
    assert.equal(res.status, 200)
    assert.match(await res.text(), /Echo: hi/)
  })
})
