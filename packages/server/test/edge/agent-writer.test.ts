/**
 * What the edge writes to an agent, over a real socket: small pieces that come one a turn while
 * the agent's connection holds bytes it has not taken (below its high-water mark) gather into few
 * writes instead of one waiting write each; an agent that reads still gets every piece, in order,
 * and the answer's end carries what waited.
 */
import assert from 'node:assert/strict'
import { createServer, type ServerResponse } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises'
import { after, describe, it } from 'node:test'
import { AgentWriter } from '../../src/edge/agent-writer.js'

/**
 * The mark the test's connections get: far above what filling the kernel's buffers leaves
 * waiting, so that the connection holds bytes without being full (Node's default is 16 KiB).
 */
const MARK = 1 << 20

/** A server answering one request with `handle`, and a raw client that asked for it. */
async function exchange(
  handle: (res: ServerResponse) => Promise<void>,
): Promise<{ client: Socket; close: () => void }> {
  const server = createServer({ highWaterMark: MARK }, (_req, res) => void handle(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
  client.write('GET / HTTP/1.1\r\nHost: agent\r\n\r\n')
  return {
    client,
    close: () => {
      client.destroy()
      server.close()
      server.closeAllConnections()
    },
  }
}

/**
 * Fill the kernel's buffers between `res` and an agent that does not read (they grow as they
 * fill), until bytes wait in `res` itself and go on waiting.
 */
async function fillConnection(res: ServerResponse): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, 0x61)
  for (let i = 0; i < 500; i++) {
    while (res.writableLength === 0) res.write(piece)
    await sleep(20)
    if (res.writableLength > 0) return
  }
}

describe('AgentWriter', () => {
  const closers: (() => void)[] = []
  after(() => closers.forEach((close) => close()))

  it('gathers small pieces that come one a turn while the agent has not taken what it has', async () => {
    let waitingWrites = 0
    let pieces = 0
    let held = 0
    const done = new Promise<void>((resolve) => {
      void exchange(async (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        await fillConnection(res)
        held = res.writableLength
        const write = res.write.bind(res) as (chunk: Uint8Array) => boolean
        // Writes made while bytes wait in Node: each holds its own entry there.
        res.write = ((chunk: Uint8Array) => {
          if (res.writableLength > 0) waitingWrites++
          return write(chunk)
        }) as typeof res.write
        const writer = new AgentWriter(res, () => {})
        // One byte a turn, as a hostile tunnel client can pace it.
        for (let i = 0; i < 20_000; i++) {
          await turn()
          pieces++
          if (!writer.write(Buffer.from('x'))) break
        }
        resolve()
      }).then(({ client, close }) => {
        client.pause()
        closers.push(close)
      })
    })
    await done
    assert.ok(held > 0 && held < MARK, `bytes waiting after the fill: ${held}`)
    assert.equal(pieces, 20_000)
    // Before, each piece left as a write of its own, waiting: one per byte up to the mark.
    assert.ok(waitingWrites <= 20, `${waitingWrites} waiting writes for ${pieces} pieces`)
  })

  it('delivers gathered pieces to an agent that reads, and what waits at the end', async () => {
    let received = ''
    const ended = new Promise<void>((resolve) => {
      void exchange(async (res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write(Buffer.alloc(4 * 1024 * 1024, 0x61))
        const writer = new AgentWriter(res, () => {})
        for (const c of 'hello') {
          await turn()
          writer.write(Buffer.from(c))
        }
        writer.flush()
        res.end()
      }).then(({ client, close }) => {
        closers.push(close)
        client.setEncoding('latin1')
        client.on('data', (text: string) => {
          received += text
          if (received.endsWith('0\r\n\r\n')) resolve()
        })
      })
    })
    await ended
    // The chunked body ends with the five small pieces, in order.
    const body = received
      .slice(received.indexOf('\r\n\r\n') + 4)
      .split('\r\n')
      .filter((_, i) => i % 2 === 1)
      .join('')
    assert.ok(body.endsWith('hello'), body.slice(-20))
  })
})
