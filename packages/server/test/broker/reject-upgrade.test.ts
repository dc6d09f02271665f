// A refused WebSocket upgrade: the envelope before any 101, then the connection closes, whether
// or not the client closes its side.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { rejectUpgrade } from '../../src/broker/reject-upgrade.js'

describe('rejectUpgrade', { timeout: 30_000 }, () => {
  let server: Server
  let port: number
  /** The server's side of each upgrade, by the client's port. */
  const upgraded = new Map<number, Socket>()

  before(async () => {
    server = createServer((_req, res) => res.end())
    server.on('upgrade', (_req, socket: Socket) => {
      upgraded.set(socket.remotePort!, socket)
      rejectUpgrade(socket, 'unauthorized', 'no key', 'unauthorized', { 'Retry-After': '1' })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })

  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('closes the connection after its answer though the client never closes its side', async () => {
    // Found by a hostile review: the answer ended only the server's side, so a stranger whose
    // upgrades (no key needed) never closed theirs held a file descriptor of burrowd each, for
    // good. Several side by side: each waits out the linger.
    const answers = await Promise.all(
      [1, 2, 3].map(async () => {
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
        let text = ''
        socket.setEncoding('latin1')
        socket.on('data', (chunk: string) => (text += chunk))
        socket.on('error', () => {})
        const read = new Promise((resolve) => socket.once('end', resolve))
        await new Promise((resolve) => socket.once('connect', resolve))
        socket.write(
          'GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        )
        await read
        // Our side stays open: the server must close the connection by itself.
        const served = upgraded.get(socket.localPort!)
        assert.ok(served, 'the server saw the upgrade')
        if (!served.destroyed) await new Promise((resolve) => served.once('close', resolve))
        socket.destroy()
        return text
      }),
    )
    for (const answer of answers) {
      assert.match(answer, /^HTTP\/1\.1 401 unauthorized\r\n/)
      assert.match(answer, /\r\nRetry-After: 1\r\n/)
      assert.match(answer, /"policy_code":"unauthorized"/)
    }
  })

  it('survives a client that resets the connection after its answer', async () => {
    // Found by a review: Node hands the socket over without its error handler, so a reset
    // arriving on it was an uncaught error, which ends burrowd.
    const reset = createServer()
    let closed = (): void => {}
    const done = new Promise<void>((resolve) => (closed = resolve))
    reset.on('upgrade', (_req, socket: Socket) => {
      rejectUpgrade(socket, 'unauthorized', 'no key')
      socket.once('close', () => closed())
    })
    await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve))
    const client = connect({ port: (reset.address() as AddressInfo).port, host: '127.0.0.1' })
    client.on('error', () => {})
    client.once('data', () => client.resetAndDestroy())
    await new Promise((resolve) => client.once('connect', resolve))
    client.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n')
    await done
    await new Promise<void>((resolve) => reset.close(() => resolve()))
  })
})
