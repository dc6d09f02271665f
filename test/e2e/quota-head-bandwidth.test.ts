// The bandwidth quota counts heads as well as bodies, through real processes: an agent and its
// local server (behind `burrow up`) in league move data in headers, the agent's going up in a
// ping's head and the server's coming back in the answer's. Before, only bodies were counted:
// about 30 KiB a request crossed uncounted, and a Free tunnel moved any amount past its 5 GB in
// requests that are no tool calls (found by a hostile review).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startChild, type Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { liveCounter, openSession, usageSet } from '../helpers/quota-stack.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const PAD = 'p'.repeat(12 * 1024)
const PINGS = 20

describe('bandwidth quota on data carried in heads', () => {
  let upstream: Child
  let service: Service
  let cli: Child
  let url: string
  let tunnelId: string

  before(async () => {
    upstream = startChild(process.execPath, [join(ROOT, 'test/fixtures/flood-sse-server.mjs')])
    const port = Number((await upstream.waitFor(/listening on (\d+)/))[1])
    service = await startService()
    const tunnel = await service.tunnel('heads')
    url = tunnel.url
    tunnelId = tunnel.id
    cli = await startClient(service, tunnel.key, ['--upstream', `http://127.0.0.1:${port}/mcp`])
  })

  after(async () => {
    await cli?.stop()
    await upstream?.stop()
    await service?.close()
  })

  it("counts the agent's request heads and the server's response heads", async () => {
    const session = await openSession(url)
    await usageSet(service, tunnelId, ['--bandwidth-bytes', '0'])
    let bodies = 0
    for (let i = 0; i < PINGS; i++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' })
      const res = await publicFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'mcp-session-id': session,
          'x-pad': PAD,
        },
        body,
      })
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('x-pad'), PAD, 'the server sent the data back in its head')
      bodies += body.length + (await res.arrayBuffer()).byteLength
    }
    const used = await liveCounter(service, tunnelId, 'bandwidth_bytes')
    assert.ok(used >= bodies, `the bodies are counted: ${used} < ${bodies}`)
    assert.ok(
      used >= bodies + 2 * PINGS * PAD.length,
      `${used} bytes counted for ${PINGS} pings that carried ${2 * PINGS * PAD.length} bytes in heads`,
    )
  })
})
