/**
 * The inspector's connection limits on real sockets: a connection silent before its request is
 * whole is closed, at most `maxConnections` are taken, and the requests that may be silent for
 * long once let in with the token (a replay waiting for the local server, the live feed) are not
 * cut off.
 */
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { startInspector, type Inspector } from '../../src/inspector/inspector-server.js'
import type { ReplayResult } from '../../src/inspector/replay-exchange.js'
import { TrafficRecorder } from '../../src/inspector/traffic-recorder.js'
import { idleSocket } from '../helpers/idle-socket.js'
import { authed, send } from './inspector-client.js'

const IDLE_MS = 300

/** A replay that takes `ms` and says nothing meanwhile. */
function slowReplay(ms: number): (id: number) => Promise<ReplayResult> {
  return async (exchangeId) => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return {
      exchangeId,
      startedAt: Date.now(),
      sentId: null,
      status: 200,
      headers: {},
      kind: 'body',
      body: null,
      messages: [],
      messagesTruncated: false,
      rpcError: false,
      latencyMs: ms,
      durationMs: ms,
      error: null,
      note: null,
    }
  }
}

describe('inspector connection limits', { timeout: 30_000 }, () => {
  // Found by hostile review: a connection that sent nothing, or half a request, was kept for
  // ever, and any number were taken, each holding a file descriptor of `burrow up`; another
  // local user opening enough of them left the process none, and its tunnel failed (EMFILE).
  let inspector: Inspector

  before(async () => {
    inspector = await startInspector({
      addr: '127.0.0.1:0',
      addrExplicit: true,
      token: null,
      admin: false,
      recorder: new TrafficRecorder(),
      replay: slowReplay(IDLE_MS * 4),
      limits: { maxConnections: 8, idleMs: IDLE_MS },
    })
  })
  after(async () => {
    await inspector?.close()
  })

  it('closes a connection that stays silent before its request is whole', async () => {
    const port = inspector.port
    const silent = await idleSocket(port)
    const half = await idleSocket(port, `GET /api/traffic HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`)
    assert.equal(await silent.closedWithin(3_000), true, 'a connection that sends nothing')
    assert.equal(await half.closedWithin(3_000), true, 'a connection that sends half a request')
  })

  it('keeps a replay that waits longer than the idle limit', async () => {
    const replayed = await authed(inspector, '/api/traffic/1/replay', {})
    assert.equal(replayed.status, 200, replayed.body)
    assert.equal((JSON.parse(replayed.body) as ReplayResult).exchangeId, 1)
  })

  it('keeps the live feed open while no traffic comes', async () => {
    const closed = await new Promise<boolean>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: inspector.port,
          path: '/api/traffic/stream',
          headers: {
            host: `127.0.0.1:${inspector.port}`,
            authorization: `Bearer ${inspector.token}`,
          },
        },
        (res) => {
          res.resume()
          let ended = false
          res.once('close', () => (ended = true))
          setTimeout(() => {
            req.destroy()
            resolve(ended)
          }, IDLE_MS * 4)
        },
      )
      req.on('error', reject)
      req.end()
    })
    assert.equal(closed, false)
  })

  it('takes at most maxConnections at once', async () => {
    const port = inspector.port
    const held = []
    for (let i = 0; i < 8; i++) held.push(await idleSocket(port))
    const extra = await idleSocket(port)
    assert.equal(await extra.closedWithin(IDLE_MS / 2), true, 'the connection past the bound')
    for (const h of held) h.socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal((await send(port, '/')).status, 200)
  })
})
