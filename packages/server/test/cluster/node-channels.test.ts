// Channels of a node link over real sockets: each tunnel's streams have the flow control of a
// tunnel connection of their own, so one tunnel whose answers are never read (an agent that does
// not read, on every stream) holds its own window and not the link's; an idle channel is retired
// and the next request to its tunnel opens a new one; a peer of an earlier version, linking
// without channels, is still served.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { silentLogger, TunnelMux, type MuxStream } from '@burrow/protocol'
import { WebSocket } from 'ws'
import { signNodeToken } from '../../src/cluster/node-auth.js'
import { NODE_LINK_PATH, NodeLinks } from '../../src/cluster/node-links.js'

const KIB = 1024

describe('node link channels', () => {
  let server: Server
  let url: string
  let holder: NodeLinks
  let forwarder: NodeLinks

  before(async () => {
    holder = new NodeLinks({
      nodeId: 'node-b',
      secret: 'cluster-secret',
      log: silentLogger,
      onStream: (stream: MuxStream, head) => {
        const size = Number(head.path.slice(1))
        stream.respond({ status: 200, headers: [] })
        // Queued whole: sent as the reader's credit allows.
        stream.write(Buffer.alloc(size, 0x61))
        stream.end()
      },
    })
    forwarder = new NodeLinks({
      nodeId: 'node-a',
      secret: 'cluster-secret',
      log: silentLogger,
      onStream: () => assert.fail('the forwarder serves nothing'),
    })
    server = createServer()
    server.on('upgrade', (req, socket, head) => holder.handleUpgrade(req, socket, head))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  after(async () => {
    forwarder.close()
    holder.close()
    await new Promise((r) => server.close(r))
  })

  /** The answer of `stream`, read whole. */
  const answer = (stream: MuxStream) =>
    new Promise<number>((resolve, reject) => {
      let bytes = 0
      stream.onReset = (_code, reason) => reject(new Error(reason))
      stream.read(
        (chunk) => void (bytes += chunk.length),
        () => resolve(bytes),
      )
    })

  it("one tunnel's unread answers do not hold another tunnel's", async () => {
    const link = await forwarder.link(url, 'node-b')
    // 80 answers of 1 MiB that nobody reads: 80 initial windows, 20 MiB, more than a connection's.
    let unread = 0
    const filled = new Promise<void>((resolve) => {
      for (let i = 0; i < 80; i++) {
        const stream = link.open(
          'tun_mallory',
          { method: 'GET', path: `/${1024 * KIB}`, headers: [] },
          undefined,
          true,
        )
        stream.read((chunk) => {
          unread += chunk.length
          if (unread >= 16 * 1024 * KIB) resolve()
          return false
        })
      }
    })
    await filled
    const victim = link.open(
      'tun_victim',
      { method: 'GET', path: `/${512 * KIB}`, headers: [] },
      undefined,
      true,
    )
    assert.equal(await answer(victim), 512 * KIB)
  })

  it('retires an idle channel, and opens a new one for the next request', async () => {
    // Channels are retired on the heartbeat: a quick one here.
    const quick = new NodeLinks({
      nodeId: 'node-a',
      secret: 'cluster-secret',
      log: silentLogger,
      heartbeatMs: 20,
      onStream: () => assert.fail('the forwarder serves nothing'),
    })
    after(() => quick.close())
    const link = await quick.link(url, 'node-b')
    const open = () =>
      answer(
        link.open(
          'tun_idle',
          { method: 'GET', path: `/${100 * KIB}`, headers: [] },
          undefined,
          true,
        ),
      )
    assert.equal(await open(), 100 * KIB)
    const before = link.size
    while (link.size >= before) await new Promise((r) => setTimeout(r, 10))
    assert.equal(await open(), 100 * KIB)
  })

  it('serves a peer that links without channels (an earlier version)', async () => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}${NODE_LINK_PATH}`, {
      perMessageDeflate: false,
      headers: {
        authorization: `Burrow-Node ${signNodeToken('cluster-secret', 'node-a', 'node-b')}`,
      },
    })
    const mux = new TunnelMux({
      role: 'broker',
      transport: { send: (bytes, done) => ws.send(bytes, { binary: true }, done) },
    })
    ws.on('message', (data: Buffer) => mux.receive(data))
    await new Promise((r) => ws.once('open', r))
    try {
      const stream = mux.open(
        { method: 'GET', path: `/${300 * KIB}`, headers: [] },
        undefined,
        true,
      )
      assert.equal(await answer(stream), 300 * KIB)
    } finally {
      ws.close()
    }
  })
})
