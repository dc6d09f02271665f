/**
 * Heads as the bandwidth quota counts them: a request's head is the bytes a real HTTP/1.1 client
 * wrote on the socket, and a response's counts its fields as sent (UTF-8 beyond Latin-1).
 */
import assert from 'node:assert/strict'
import { createServer, request, type IncomingMessage } from 'node:http'
import { type AddressInfo, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { requestHeadBytes, responseHeadBytes } from '../../src/edge/head-bytes.js'

describe('head bytes', () => {
  it("counts a request's head as the bytes its client wrote", async () => {
    let wire = Buffer.alloc(0)
    let seen: IncomingMessage | null = null
    const server = createServer((req, res) => {
      seen = req
      res.end()
    })
    server.on('connection', (socket: Socket) => {
      socket.on('data', (chunk: Buffer) => (wire = Buffer.concat([wire, chunk])))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      await new Promise<void>((resolve, reject) => {
        const req = request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/mcp?x=1',
            headers: { 'x-pad': 'p'.repeat(5000), 'content-type': 'application/json' },
          },
          (res) => res.resume().on('end', resolve),
        )
        req.on('error', reject)
        req.end('{}')
      })
      const req = seen as IncomingMessage | null
      assert.ok(req !== null)
      const head = wire.indexOf('\r\n\r\n') + 4
      assert.equal(requestHeadBytes(req.method!, req.url!, req.rawHeaders), head)
    } finally {
      server.close()
    }
  })

  it("counts a response's fields as sent, beyond Latin-1 as UTF-8", () => {
    const plain = responseHeadBytes([['x-pad', 'abc']])
    assert.equal(plain, 17 + 'x-pad: abc\r\n'.length)
    assert.equal(responseHeadBytes([['x-pad', 'ab€']]), plain + 2)
  })
})
