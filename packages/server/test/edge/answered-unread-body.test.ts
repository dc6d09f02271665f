/**
 * A tunnel client that answers a request at once and never reads its body (never grants credit
 * for it): the tenant controls both the agent and the tunnel client, so a free account can send
 * such calls in a loop. A real burrowd and a hand-made tunnel client over the real broker: each
 * call of nearly 4 MiB is answered, and once it is, none of its body waits in the tunnel's stream
 * any longer and the client is told so (RST `cancel`), as an HTTP/2 client stops sending a request
 * its server has answered. Before, the rest of each body waited in the stream's send queue until
 * the tunnel connection closed, while its body budget had been given back at the answer: twenty
 * such calls left 75 MiB queued, past the 64 MiB a tunnel's bodies may hold, without bound.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeFrame, encodeFrame, PROTOCOL_VERSION, RESET_CODE } from '@burrow/protocol'
import { WebSocket } from 'ws'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { edgeRequest, hostOf } from '../helpers/edge-request.js'
import { parsePrometheus } from '../helpers/parse-prometheus.js'

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{}}'
/** A call of nearly 4 MiB (the default body limit). */
const CALL = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${' '.repeat(4 * 1024 * 1024 - 100)}"}}`
const CALLS = 20

/** A tunnel client answering every request at once, reading none of its body; notes resets. */
function unreadingClient(service: Service, key: string, resets: number[]): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(service.broker, { headers: { authorization: `Bearer ${key}` } })
    ws.once('error', reject)
    ws.once('open', () =>
      ws.send(
        encodeFrame({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'unread/1' } }),
      ),
    )
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrame(data)
      if (frame.type === 'welcome') resolve(ws)
      if (frame.type === 'rst') resets.push(frame.code)
      if (frame.type !== 'open') return
      ws.send(
        encodeFrame({
          type: 'response',
          streamId: frame.streamId,
          head: { status: 200, headers: [['content-type', 'application/json']] },
          body: Buffer.from(ANSWER),
          fin: true,
        }),
      )
    })
  })
}

describe('bodies a tunnel client answers without reading', { timeout: 120_000 }, () => {
  let service: Service
  let client: WebSocket
  let host: string
  const resets: number[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'warn' })
    const tunnel = await service.tunnel('unread')
    host = hostOf(tunnel.publicUrl)
    client = await unreadingClient(service, tunnel.key, resets)
  })
  after(async () => {
    client?.terminate()
    await service?.close()
  })

  it('holds none of an answered body in the tunnel stream, and resets the stream', async () => {
    for (let i = 0; i < CALLS; i++) {
      const answer = await edgeRequest(service.port, host, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: CALL,
      })
      assert.equal(answer.status, 200, answer.text.slice(0, 200))
      assert.equal(answer.text, ANSWER)
    }
    const { queued, bodies } = await settled()
    assert.equal(bodies, 0, 'no body budget is held')
    assert.equal(queued, 0, `${queued} bytes of answered bodies wait in the tunnel's streams`)
    assert.equal(resets.length, CALLS, 'each stream is reset once its answer is complete')
    assert.ok(resets.every((code) => code === RESET_CODE.cancel))
  })

  /** The metrics once nothing is queued in tunnel streams, or as they are after many looks. */
  async function settled(): Promise<{ queued: number; bodies: number }> {
    let found = { queued: -1, bodies: -1 }
    for (let tries = 0; tries < 100; tries++) {
      const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text()
      const families = new Map(parsePrometheus(text).map((f) => [f.name, f]))
      const value = (name: string) => Number(families.get(name)?.metrics[0]?.value ?? NaN)
      found = {
        queued: value('burrowd_tunnel_queued_bytes'),
        bodies: value('burrowd_edge_request_body_bytes'),
      }
      if (found.queued === 0 && found.bodies === 0 && resets.length >= CALLS) return found
      await new Promise((r) => setTimeout(r, 50))
    }
    return found
  }
})
