/**
 * A hostile tunnel client's faulty frames do not become one log line each. A fault that names a
 * stream already closed resets nothing and is dropped unlogged (a 10-byte WINDOW of no credit, or
 * an RST of an unknown code, for a stream that ended was a warning apiece: a log written without
 * bound, one synchronous write per frame on burrowd's only thread); faults that do reset a stream
 * are logged once, then counted; and a connection's protocol error is logged once, not again for
 * each message the client sends until its socket closes. The real built burrowd (`npx tsc -b`).
 */
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import {
  encodeFrame,
  FRAME_TYPE,
  HEADER_BYTES,
  RESET_CODE,
  type HeaderPairs,
} from '@burrow/protocol'
import { connectFake } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { hostOf, postJson } from '../helpers/edge-request.js'

const JSON_HEADERS: HeaderPairs = [['content-type', 'application/json']]
const FAULT = /broke the protocol/g

let service: Service

before(async () => {
  service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
})

after(async () => {
  await service?.close()
})

/** Lines of burrowd's log that tell of a client's faulty frame. */
const faultLines = () => service.proc.stderr.match(FAULT)?.length ?? 0

/** A WINDOW of no credit (which no encoder makes) for stream `id`. */
function zeroWindow(id: number): Buffer {
  const frame = Buffer.alloc(HEADER_BYTES + 4)
  frame[0] = FRAME_TYPE.window
  frame.writeUInt32BE(id, 2)
  return frame
}

/** An RST of a code no version knows for stream `id`. */
function unknownReset(id: number): Buffer {
  const frame = encodeFrame({ type: 'rst', streamId: id, code: RESET_CODE.cancel, reason: '' })
  frame.writeUInt32BE(99, HEADER_BYTES)
  return frame
}

it('faults for a closed stream are dropped unlogged; those that reset streams are logged once', async () => {
  const tunnel = await service.tunnel('faults')
  const client = await connectFake(service.broker, tunnel.key)
  const host = hostOf(tunnel.publicUrl)
  try {
    const answered = postJson(service.port, host, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    const req = await client.nextRequest()
    req.replyJson(200, { jsonrpc: '2.0', id: 1, result: { tools: [] } })
    assert.equal((await answered).status, 200)
    const before = faultLines()
    for (let i = 0; i < 2_000; i++) {
      client.ws.send(zeroWindow(req.stream.id))
      client.ws.send(unknownReset(req.stream.id))
    }
    await client.roundTrip()

    // Ten streams, each answered with a head the codec refuses: each is reset, one line in all.
    const calls = Array.from({ length: 10 }, (_, i) =>
      postJson(service.port, host, { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }),
    )
    for (let i = 0; i < calls.length; i++) {
      const next = await client.nextRequest()
      const bad = encodeFrame({
        type: 'response',
        streamId: next.stream.id,
        head: { status: 200, headers: JSON_HEADERS },
        fin: true,
      })
      bad.writeUInt16BE(bad.readUInt16BE(HEADER_BYTES) - 1, HEADER_BYTES) // the head's JSON cut
      client.ws.send(bad)
    }
    for (const call of calls) assert.equal((await call).status, 502)
    // burrowd logs in order: once this line is here, any line of the flood before it is too.
    await service.proc.waitFor(/RESPONSE head is not valid JSON/)
    assert.equal(faultLines(), before + 1)
  } finally {
    await client.close()
  }
})

it("a connection's protocol error is logged once, whatever the client sends after it", async () => {
  const tunnel = await service.tunnel('text-flood')
  const client = await connectFake(service.broker, tunnel.key)
  const lines = () => service.proc.stderr.match(/protocol error from client/g)?.length ?? 0
  const before = lines()
  // Text is refused (1002); what follows until the close handshake ends is each refused again.
  for (let i = 0; i < 2_000; i++) client.ws.send(`not a frame ${i}`)
  const closed = await client.closed
  assert.equal(closed.code, 1002)
  await service.proc.waitFor(new RegExp(`tunnel ${tunnel.id} disconnected; holding it`))
  assert.equal(lines(), before + 1)
})
