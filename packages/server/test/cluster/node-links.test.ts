// Links between two nodes over real sockets: a stream opened on one is served by the other,
// bodies both ways; a peer without a valid token, with one for another node, or with one already
// used is refused before the 101; a peer that stops answering without closing its socket is
// dropped by the heartbeat, and the next request opens a new link.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { silentLogger, type MuxStream } from '@burrow/protocol'
import { WebSocket, WebSocketServer } from 'ws'
import { signNodeToken } from '../../src/cluster/node-auth.js'
import { NODE_LINK_PATH, NodeLinks } from '../../src/cluster/node-links.js'

describe('NodeLinks', () => {
  let server: Server
  let url: string
  let holder: NodeLinks
  let forwarder: NodeLinks

  before(async () => {
    holder = new NodeLinks({
      nodeId: 'node-b',
      secret: 'cluster-secret',
      log: silentLogger,
      onStream: (stream: MuxStream, head, body) => {
        stream.respond(
          { status: 200, headers: [['x-path', head.path]] },
          Buffer.from(`echo:${Buffer.from(body ?? new Uint8Array()).toString()}`),
          true,
        )
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

  it('carries a request to the holder and its answer back, on one reused link', async () => {
    for (const word of ['one', 'two']) {
      const link = await forwarder.link(url, 'node-b')
      const stream = link.open(
        'tun_one',
        { method: 'POST', path: '/mcp', headers: [] },
        Buffer.from(word),
        true,
      )
      const answer = await new Promise<string>((resolve) => {
        stream.onResponse = (h, body) =>
          resolve(`${h.headers[0]?.[1]} ${Buffer.from(body ?? new Uint8Array()).toString()}`)
      })
      assert.equal(answer, `/mcp echo:${word}`)
    }
    assert.equal(await forwarder.link(url, 'node-b'), await forwarder.link(url, 'node-b'))
  })

  it('logs refused links at most once a minute, however many strangers try', async () => {
    const lines: string[] = []
    const log = { ...silentLogger, warn: (m: string) => void lines.push(m) }
    const guarded = new NodeLinks({ nodeId: 'n', secret: 's', log, onStream: () => {} })
    const refusing = createServer()
    refusing.on('upgrade', (req, socket, head) => guarded.handleUpgrade(req, socket, head))
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r))
    const port = (refusing.address() as AddressInfo).port
    try {
      for (let i = 0; i < 20; i++) {
        await new Promise<void>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}${NODE_LINK_PATH}`, {
            headers: { authorization: `Burrow-Node stranger.${i}.forged` },
          })
          ws.on('unexpected-response', () => resolve())
          ws.on('error', () => resolve())
        })
      }
      assert.equal(lines.length, 1, lines.join('\n'))
    } finally {
      guarded.close()
      await new Promise((r) => refusing.close(r))
    }
  })

  it('refuses a peer without a valid token', async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${url.replace('http', 'ws')}${NODE_LINK_PATH}`, {
        headers: { authorization: 'Burrow-Node node-x.1.forged' },
      })
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.on('error', () => {})
    })
    assert.equal(status, 401)
    const other = new NodeLinks({
      nodeId: 'node-c',
      secret: 'another-secret',
      log: silentLogger,
      onStream: () => {},
    })
    await assert.rejects(other.link(url, 'node-b'), /HTTP 401/)
    other.close()
  })

  it('refuses a token made for another node, and a token used once already', async () => {
    const link = (token: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${url.replace('http', 'ws')}${NODE_LINK_PATH}`, {
          headers: { authorization: `Burrow-Node ${token}` },
        })
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
        ws.on('open', () => {
          ws.close()
          resolve(101)
        })
        ws.on('error', () => {})
      })
    assert.equal(await link(signNodeToken('cluster-secret', 'node-a', 'node-c')), 401)
    const token = signNodeToken('cluster-secret', 'node-a', 'node-b')
    assert.equal(await link(token), 101)
    assert.equal(await link(token), 401, 'a token seen on its way cannot be replayed')
  })

  it(
    'drops a link whose peer stops answering pings, and opens a new one',
    { timeout: 30_000 },
    async () => {
      // A peer that accepts the link, then goes silent (no pongs) without closing its socket.
      const silent = new WebSocketServer({ noServer: true, autoPong: false })
      const accepted: WebSocket[] = []
      const peer = createServer()
      peer.on('upgrade', (req, socket, head) =>
        silent.handleUpgrade(req, socket, head, (ws) => void accepted.push(ws)),
      )
      await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r))
      const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`
      const lines: string[] = []
      const links = new NodeLinks({
        nodeId: 'node-a',
        secret: 'cluster-secret',
        log: { ...silentLogger, warn: (line: string) => void lines.push(line) },
        onStream: () => {},
        heartbeatMs: 30,
      })
      try {
        const first = await links.link(peerUrl, 'node-b')
        const stream = first.open(
          'tun_one',
          { method: 'POST', path: '/mcp', headers: [] },
          undefined,
          false,
        )
        const ended = new Promise<string>((resolve) => {
          stream.onReset = (_code, reason) => resolve(reason)
        })
        await new Promise((r) => accepted[0]!.once('close', r))
        assert.match(await ended, /node link closed/)
        assert.match(lines.join('\n'), /left two pings unanswered/)
        const second = await links.link(peerUrl, 'node-b')
        assert.notEqual(second, first)
        assert.equal(accepted.length, 2)
      } finally {
        links.close()
        for (const ws of accepted) ws.terminate()
        await new Promise((r) => peer.close(r))
      }
    },
  )
})
