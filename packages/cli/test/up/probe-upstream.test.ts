// The start-up look at a single HTTP upstream, against real sockets on 127.0.0.1.
import assert from 'node:assert/strict'
import { createServer, type AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { probeUpstream } from '../../src/up/probe-upstream.js'
import { freePort } from '../../../../test/helpers/free-port.js'

describe('probeUpstream', () => {
  it('finds a listener at the URL host and port', async () => {
    const server = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      assert.equal(await probeUpstream(`http://127.0.0.1:${port}/mcp`), null)
    } finally {
      server.close()
    }
  })

  it('says in words why nothing answers', async () => {
    const port = await freePort()
    assert.equal(await probeUpstream(`http://127.0.0.1:${port}/mcp`), 'connection refused')
  })
})
