// Heartbeats: burrowd pings every tunnel connection; a client that leaves two pings unanswered
// is dropped (and its tunnel goes into its grace period), while one that answers stays.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeFrame, encodeFrame, PROTOCOL_VERSION } from '@burrow/protocol'
import { WebSocket } from 'ws'
import { startService, type Service } from '../../../../test/helpers/stack.js'

/** Connect and say HELLO; `pings` counts every ping from the moment the socket exists. */
function connect(
  service: Service,
  key: string,
  autoPong: boolean,
  pings = { count: 0 },
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(service.broker, {
      headers: { authorization: `Bearer ${key}` },
      autoPong,
    })
    ws.on('ping', () => pings.count++)
    ws.once('error', reject)
    ws.once('open', () =>
      ws.send(
        encodeFrame({
          type: 'hello',
          hello: { version: PROTOCOL_VERSION, agent: 'heartbeat-test/1' },
        }),
      ),
    )
    ws.on('message', (data: Buffer) => {
      if (decodeFrame(data).type === 'welcome') resolve(ws)
    })
  })
}

describe('broker heartbeats', () => {
  let service: Service
  before(async () => (service = await startService({ BURROW_HEARTBEAT_SECS: '1' })))
  after(async () => service?.close())

  it('drops a client that does not answer two pings, keeps one that does', async () => {
    const [silentTunnel, aliveTunnel] = [
      await service.tunnel('silent'),
      await service.tunnel('alive'),
    ]
    const pings = { count: 0 }
    const silent = await connect(service, silentTunnel.key, false, pings)
    const closed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)))
    const alive = await connect(service, aliveTunnel.key, true)
    const code = await closed
    assert.ok(pings.count >= 2, `pinged ${pings.count} times before being dropped`)
    assert.equal(code, 1006, 'terminated without a close handshake')
    assert.equal(alive.readyState, WebSocket.OPEN, 'the answering client is still connected')
    await service.proc.waitFor(/two heartbeats unanswered/)
    alive.close()
  })
})
