// What a drain waits for: a request counts from its OPEN, while its body still arrives, until its
// answer went to the tunnel; an agent's GET stream never counts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLogger, RESET_CODE } from '@burrow/protocol'
import type { LocalRequest, LocalResponse } from '../../src/relay/local-exchange.js'
import { InFlight } from '../../src/tunnel/in-flight.js'
import { serveStream } from '../../src/tunnel/serve-stream.js'
import { muxPair } from '../helpers/mux-pair.js'

const log = createLogger('error', () => {})

function pair(handle: (req: LocalRequest, res: LocalResponse) => Promise<void>) {
  const carried = new InFlight()
  const joined = muxPair((stream, head, body, fin) =>
    serveStream(stream, head, body, fin, { handle }, log, [carried]),
  )
  return { ...joined, carried }
}

const post = { method: 'POST', path: '/mcp', headers: [] as [string, string][] }

describe('serveStream', () => {
  it('counts a request whose body is still arriving, until its answer went out', async () => {
    let answer: (() => void) | null = null
    const p = pair(
      (_req, res) =>
        new Promise<void>((resolve) => {
          answer = () => {
            res.writeHead(200, {})
            res.end()
            resolve()
          }
        }),
    )
    const stream = p.broker.open(post, undefined, false)
    stream.write(Buffer.alloc(100_000, 0x20))
    await p.flush()
    assert.equal(p.carried.count, 1, 'counted before its body is complete')
    let idle = false
    void p.carried.whenIdle(60_000).then(() => (idle = true))
    stream.end()
    await p.flush()
    assert.equal(p.carried.count, 1, 'the handler is answering')
    assert.equal(idle, false)
    answer!()
    await p.flush()
    assert.equal(p.carried.count, 0)
    assert.equal(idle, true)
  })

  it('stops counting a request reset before its body is complete', async () => {
    let handled = false
    const p = pair(async () => void (handled = true))
    const stream = p.broker.open(post, undefined, false)
    stream.write(Buffer.alloc(10, 0x20))
    await p.flush()
    assert.equal(p.carried.count, 1)
    stream.reset(RESET_CODE.cancel, 'agent left')
    await p.flush()
    assert.equal(p.carried.count, 0)
    assert.equal(handled, false)
  })

  it('stops counting the requests of a connection that was lost', async () => {
    const p = pair(() => new Promise<void>(() => {}))
    p.broker.open(post, undefined, false)
    await p.flush()
    assert.equal(p.carried.count, 1)
    p.client.close('tunnel connection lost')
    assert.equal(p.carried.count, 0)
  })

  it('never counts a GET stream; a drain with only GET streams open is idle at once', async () => {
    const p = pair(() => new Promise<void>(() => {}))
    p.broker.open({ method: 'GET', path: '/mcp', headers: [] }, undefined, true)
    await p.flush()
    assert.equal(p.carried.count, 0)
    let idle = false
    void p.carried.whenIdle(60_000).then(() => (idle = true))
    await p.flush()
    assert.equal(idle, true)
  })
})
