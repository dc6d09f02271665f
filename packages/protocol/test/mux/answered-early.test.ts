// A request answered before its body was read: what waits of the body is dropped and the stream
// reset (`cancel`), so nothing of it stays queued for a peer that will never take it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RESET_CODE, TunnelMux, type MuxStream, type ResetCode } from '../../src/index.js'

/** A broker/client pair over queued transports; `flush` delivers until quiet. */
function pair(onOpen: (stream: MuxStream) => void) {
  const toClient: Uint8Array[] = []
  const toBroker: Uint8Array[] = []
  const broker = new TunnelMux({ role: 'broker', transport: { send: (b) => toClient.push(b) } })
  const client = new TunnelMux({
    role: 'client',
    transport: { send: (b) => toBroker.push(b) },
    onOpen,
  })
  const flush = async () => {
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setImmediate(r))
      while (toClient.length || toBroker.length) {
        while (toClient.length) client.receive(toClient.shift()!)
        while (toBroker.length) broker.receive(toBroker.shift()!)
      }
    }
  }
  return { broker, client, flush }
}

const head = { method: 'POST', path: '/mcp', headers: [] as [string, string][] }

describe('a request answered before its body was read', () => {
  it('drops what waits of the body and resets the stream', async () => {
    const resets: ResetCode[] = []
    const p = pair((stream) => {
      // Answered at once, the body never read (no credit granted for it).
      stream.onReset = (code) => resets.push(code)
      stream.respond({ status: 200, headers: [] }, Buffer.from('{}'), true)
    })
    const stream = p.broker.open(head)
    assert.equal(stream.write(Buffer.alloc(4 * 1024 * 1024, 0x20)), false)
    stream.end()
    let answer = ''
    let ended = false
    stream.onResponse = (_head, body) => (answer = Buffer.from(body ?? []).toString())
    stream.read(
      () => {},
      () => (ended = true),
    )
    let localEnd = 0
    stream.onLocalEnd = () => localEnd++
    await p.flush()
    assert.equal(answer, '{}', 'the answer is delivered')
    assert.ok(ended)
    assert.equal(stream.queuedBytes, 0, 'nothing of the body waits')
    assert.equal(p.broker.queuedBytes, 0)
    assert.ok(stream.closed)
    assert.equal(localEnd, 1)
    assert.equal(p.broker.streamCount, 0)
    assert.equal(p.client.streamCount, 0, 'the client learns nothing more will come')
    assert.deepEqual(resets, [RESET_CODE.cancel])
  })

  it('leaves a stream whose body was all sent to end as usual', async () => {
    const resets: ResetCode[] = []
    const p = pair((stream) => {
      stream.onReset = (code) => resets.push(code)
      stream.read(
        () => {},
        () => stream.respond({ status: 200, headers: [] }, Buffer.from('{}'), true),
      )
    })
    const stream = p.broker.open(head)
    stream.write(Buffer.alloc(1024 * 1024, 0x20))
    stream.end()
    let ended = false
    stream.read(
      () => {},
      () => (ended = true),
    )
    await p.flush()
    assert.ok(ended)
    assert.ok(stream.closed)
    assert.equal(p.broker.streamCount, 0)
    assert.equal(p.client.streamCount, 0)
    assert.deepEqual(resets, [])
  })
})
