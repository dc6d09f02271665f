// Piping a forwarded stream to the tunnel's stream: bodies both ways under flow control, the
// response head, and resets crossing the pipe.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RESET_CODE, TunnelMux, type MuxStream, type RequestHead } from '@burrow/protocol'
import { pipeStreams } from '../../src/cluster/stream-pipe.js'

/** A connected broker/client pair of muxes over queued transports, flushed on demand. */
function pair(onOpen: (s: MuxStream, body: Uint8Array | undefined) => void) {
  const toClient: Uint8Array[] = []
  const toBroker: Uint8Array[] = []
  const broker = new TunnelMux({
    role: 'broker',
    transport: { send: (b, done) => (toClient.push(b), queueMicrotask(() => done?.())) },
  })
  const client = new TunnelMux({
    role: 'client',
    transport: { send: (b, done) => (toBroker.push(b), queueMicrotask(() => done?.())) },
    onOpen: (s, _h, body) => onOpen(s, body),
  })
  const flush = async () => {
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setImmediate(r))
      if (toClient.length === 0 && toBroker.length === 0) {
        await new Promise((r) => setImmediate(r))
        if (toClient.length === 0 && toBroker.length === 0) return
      }
      while (toClient.length) client.receive(toClient.shift()!)
      while (toBroker.length) broker.receive(toBroker.shift()!)
    }
  }
  return { broker, client, flush }
}

const head: RequestHead = { method: 'POST', path: '/mcp', headers: [] }

describe('pipeStreams', () => {
  it('carries a large request and a large response through a relay node', async () => {
    // agent-side node A → (node link) → relay node B → (tunnel link) → client C
    let serverGot = 0
    const c = pair((s) => {
      s.read(
        (chunk) => void (serverGot += chunk.length),
        () => {
          s.respond({ status: 200, headers: [['content-type', 'application/octet-stream']] })
          for (let i = 0; i < 40; i++) s.write(Buffer.alloc(64 * 1024, i))
          s.end()
        },
      )
    })
    let done = 0
    const node = pair((inbound) => pipeStreams(inbound, c.broker.open(head), () => done++))
    const stream = node.broker.open(head)
    for (let i = 0; i < 20; i++) stream.write(Buffer.alloc(64 * 1024, 1))
    stream.end()
    let status = 0
    let received = 0
    let ended = false
    stream.onResponse = (h) => (status = h.status)
    stream.read(
      (chunk) => void (received += chunk.length),
      () => (ended = true),
    )
    for (let i = 0; i < 50 && !ended; i++) {
      await node.flush()
      await c.flush()
    }
    assert.equal(serverGot, 20 * 64 * 1024)
    assert.equal(status, 200)
    assert.equal(received, 40 * 64 * 1024)
    assert.ok(ended)
    assert.equal(done, 1, 'the pipe reports its end once')
  })

  it('passes a reset from the agent side through to the tunnel client, and back', async () => {
    let clientReset = ''
    const c = pair((s) => (s.onReset = (_code, why) => (clientReset = why)))
    let done = 0
    const node = pair((inbound) => pipeStreams(inbound, c.broker.open(head), () => done++))
    const stream = node.broker.open(head)
    await node.flush()
    await c.flush()
    stream.reset(RESET_CODE.cancel, 'the agent disconnected')
    await node.flush()
    await c.flush()
    assert.equal(clientReset, 'the agent disconnected')
    assert.equal(done, 1, 'a reset ends the pipe, reported once')

    let agentReset = ''
    let tunnelSide: MuxStream | null = null
    const c2 = pair((s) => (tunnelSide = s))
    let done2 = 0
    const node2 = pair((inbound) => pipeStreams(inbound, c2.broker.open(head), () => done2++))
    const s2 = node2.broker.open(head)
    s2.onReset = (_code, why) => (agentReset = why)
    await node2.flush()
    await c2.flush()
    ;(tunnelSide as MuxStream | null)?.reset(RESET_CODE.upstream, 'local server failed')
    await c2.flush()
    await node2.flush()
    assert.equal(agentReset, 'local server failed')
    assert.equal(done2, 1)
  })

  it('leaves nothing open on either node when the client answers without reading the body', async () => {
    // The tunnel client answers at once and never grants credit for the body: what waits of it
    // is dropped on both nodes, and every stream ends (before, the relay node's stream to the
    // client and the forwarding node's stream to it stayed open with the body queued until
    // their connections closed).
    let clientReset = 0
    const c = pair((s) => {
      s.onReset = (code) => (clientReset = code)
      s.respond({ status: 200, headers: [] }, Buffer.from('{}'), true)
    })
    let done = 0
    const node = pair((inbound) => pipeStreams(inbound, c.broker.open(head), () => done++))
    const stream = node.broker.open(head)
    stream.write(Buffer.alloc(4 * 1024 * 1024, 0x20))
    stream.end()
    let answer = ''
    stream.onResponse = (_h, body) => (answer = Buffer.from(body ?? []).toString())
    stream.read(() => {})
    for (let i = 0; i < 5; i++) {
      await node.flush()
      await c.flush()
    }
    assert.equal(answer, '{}')
    assert.equal(done, 1)
    assert.equal(clientReset, RESET_CODE.cancel, 'the client learns nothing more will come')
    for (const mux of [node.broker, node.client, c.broker, c.client]) {
      assert.equal(mux.streamCount, 0)
      assert.equal(mux.queuedBytes, 0)
    }
  })

  it("tells the forwarding node a refusal as a refusal, and its tunnel's loss as that loss", async () => {
    // Refused by the next hop (a node that no longer holds the tunnel): nothing was processed,
    // and the forwarding node may send the request again, as it does when this node refuses.
    let tunnelSide: MuxStream | null = null
    const c = pair((s) => (tunnelSide = s))
    const node = pair((inbound) => pipeStreams(inbound, c.broker.open(head)))
    const refused = node.broker.open(head)
    let refusedCode = 0
    refused.onReset = (code) => (refusedCode = code)
    await node.flush()
    await c.flush()
    ;(tunnelSide as MuxStream | null)?.reset(RESET_CODE.refused, 'this node no longer holds it')
    await c.flush()
    await node.flush()
    assert.equal(refusedCode, RESET_CODE.refused)

    // The tunnel's connection closed: said as on one node (the client went away), not as the
    // local server failing.
    const c2 = pair(() => {})
    const node2 = pair((inbound) => pipeStreams(inbound, c2.broker.open(head)))
    const cut = node2.broker.open(head)
    let cutCode = 0
    cut.onReset = (code) => (cutCode = code)
    await node2.flush()
    await c2.flush()
    c2.broker.close('tunnel connection closed')
    await node2.flush()
    assert.equal(cutCode, RESET_CODE.internal)
  })
})
