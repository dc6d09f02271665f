// A link the peer refused before the 101 (a node starting answers 503; a node restarted at the
// same address under a new id answers 401 to a token for its old id) is not kept: the next
// request opens a new one.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { rejectUpgrade } from '../../src/broker/reject-upgrade.js'
import { NodeLinks } from '../../src/cluster/node-links.js'

it('opens a new link after the peer refused one, and does not keep the refused one', async () => {
  const holder = new NodeLinks({
    nodeId: 'node-b',
    secret: 'cluster-secret',
    log: silentLogger,
    onStream: (stream) => stream.respond({ status: 204, headers: [] }, undefined, true),
  })
  const forwarder = new NodeLinks({
    nodeId: 'node-a',
    secret: 'cluster-secret',
    log: silentLogger,
    onStream: () => assert.fail('the forwarder serves nothing'),
  })
  // Starting: every upgrade gets 503, as burrowd answers before its services are wired.
  let starting = true
  const server = createServer()
  server.on('upgrade', (req, socket, head) => {
    if (starting) rejectUpgrade(socket, 'tunnel_offline', 'burrowd is starting')
    else holder.handleUpgrade(req, socket, head)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    await assert.rejects(forwarder.link(url, 'node-b'), /HTTP 503/)
    starting = false
    const link = await forwarder.link(url, 'node-b')
    const stream = link.open(
      'tun_one',
      { method: 'POST', path: '/mcp', headers: [] },
      undefined,
      true,
    )
    const status = await new Promise<number>((resolve) => {
      stream.onResponse = (head) => resolve(head.status)
    })
    assert.equal(status, 204)
  } finally {
    forwarder.close()
    holder.close()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
})
