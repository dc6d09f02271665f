/**
 * The inspector's byte budget counts what headers hold, not only their text: each field of a
 * request or response head costs its record beside its name and value. Found by a hostile
 * review: a local server answering every call with 1,800 short fields (a 16 KiB head) was
 * counted some 20 KB an exchange but held about four times that, so the budget kept many times
 * what it counted, bounded only by the 500 exchanges. A real local server behind the real HTTP
 * relay, tapped and served as `burrow up` serves it.
 */
import assert from 'node:assert/strict'
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net'
import { request } from 'node:http'
import { describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { silentLogger } from '@burrow/protocol'
import { HttpRelay } from '../../src/relay/http-relay.js'
import { headerBytes } from '../../src/inspector/held-bytes.js'
import { serveTapped } from './serve-tapped.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** A local server whose every answer carries the head `fields` makes (read, then answered). */
async function hostileServer(fields: (call: number) => string): Promise<Server> {
  let calls = 0
  const server = createTcpServer((socket) => {
    let seen = ''
    socket.setEncoding('latin1')
    socket.on('error', () => {})
    socket.on('data', (d: string) => {
      seen += d
      for (;;) {
        const headEnd = seen.indexOf('\r\n\r\n')
        if (headEnd < 0) return
        const length = Number(/content-length: *(\d+)/i.exec(seen.slice(0, headEnd))?.[1] ?? 0)
        if (seen.length < headEnd + 4 + length) return
        seen = seen.slice(headEnd + 4 + length)
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}'
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${fields(++calls)}` +
            `content-length: ${body.length}\r\n\r\n${body}`,
        )
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

/** POST a call to `url` with `headers`, reading the answer (whatever its head's size). */
function post(url: URL, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} })
    const req = request(url, {
      method: 'POST',
      maxHeaderSize: 256 * 1024,
      headers: { 'content-type': 'application/json', ...headers },
    })
    req.on('response', (res) => {
      res.resume()
      res.on('end', resolve)
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('the inspector counts header overhead in its budget', () => {
  it('counts each field beside its name and value', () => {
    const many: Record<string, string> = {}
    for (let i = 0; i < 100; i++) many[`x${i}`] = ''
    assert.ok(headerBytes(many) >= 100 * 64, `100 empty fields counted ${headerBytes(many)}`)
    assert.ok(headerBytes({ a: 'b'.repeat(1000) }) >= 2 * 1001, 'text counted too')
  })

  it('holds about its budget when a local server answers with many or huge fields', async () => {
    const budget = 4 * 1024 * 1024
    // Many short fields, different on every answer (as a hostile server makes them), then one
    // huge field: each head under the relay's 16 KiB.
    const manyFields = (call: number) => {
      let head = ''
      for (let i = 0; head.length < 15_000; i++) head += `x${i}-${call}:\r\n`
      return head
    }
    const huge = (call: number) => `x-huge-${call}: ${'h'.repeat(15_000)}\r\n`
    for (const [name, fields] of [
      ['many', manyFields],
      ['huge', huge],
    ] as const) {
      const upstream = await hostileServer(fields)
      const { port } = upstream.address() as AddressInfo
      const relay = new HttpRelay(`http://127.0.0.1:${port}/mcp`, silentLogger)
      const tapped = await serveTapped(relay, { maxHeldBytes: budget })
      // Many request fields too: the agent's head is kept beside the answer's.
      const sent: Record<string, string> = {}
      for (let i = 0; i < 500; i++) sent[`r${i}`] = ''
      try {
        await post(tapped.url, sent) // warm up the connections
        gc()
        const before = process.memoryUsage().heapUsed
        for (let round = 0; round < 50; round++)
          await Promise.all(Array.from({ length: 8 }, () => post(tapped.url, sent)))
        gc()
        const held = process.memoryUsage().heapUsed - before
        const kept = tapped.recorder.list().length
        assert.ok(
          held <= budget * 2,
          `${name}: ${kept} exchanges kept hold ${(held / 1048576).toFixed(1)} MiB against a budget of 4 MiB`,
        )
      } finally {
        await tapped.close()
        await relay.close()
        upstream.close()
      }
    }
  })
})
