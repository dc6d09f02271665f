// What a starting burrowd holds of a /mcp body it reads for the refused ids: at most 64 KiB of
// it, in memory worth about that much however the agent sends it.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { after, before, describe, it } from 'node:test'
import { answerStarting } from '../../src/http/answer-starting.js'
import { REFUSAL_BODY_READ_BYTES as STARTING_BODY_READ_BYTES } from '../../src/http/ids-of-unread-body.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

describe('answerStarting', { timeout: 60_000 }, () => {
  let server: Server
  let port: number
  /** Body bytes the server has received, over all requests. */
  let received = 0
  const agents: Socket[] = []

  before(async () => {
    server = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => (received += chunk.length))
      answerStarting(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })

  after(() => {
    for (const agent of agents) agent.destroy()
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('holds a body sent one byte per chunk in memory worth about its size', async () => {
    // Found by a hostile review: each chunk was kept as node gave it, one Buffer per byte, some
    // 200 bytes of memory per byte; twenty such bodies, never finished, held 250 MB of heap.
    const agentsCount = 10
    const bytes = STARTING_BODY_READ_BYTES - 1000
    gc()
    const before = process.memoryUsage().heapUsed
    for (let i = 0; i < agentsCount; i++) {
      const agent = connect(port, '127.0.0.1')
      agent.on('error', () => {})
      agents.push(agent)
      agent.write('POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
      agent.write('1\r\na\r\n'.repeat(bytes)) // the body never ends
    }
    while (received < agentsCount * bytes) await new Promise((resolve) => setTimeout(resolve, 20))
    gc()
    const grown = process.memoryUsage().heapUsed - before
    // About 640 KiB of bodies: well under what a Buffer per byte held (over 100 MB).
    assert.ok(grown < 32 * 1024 * 1024, `heap grew by ${(grown / 1e6).toFixed(1)} MB`)
  })
})
