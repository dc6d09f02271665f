// A tunnel client that never reads is cut off once 64 MiB wait for it, whether or not it sends
// anything: the bound was checked only when a message came from the client, so one that stayed
// silent (answering heartbeats with unsolicited pongs, which need no reading) let request heads
// pile up to the 10,000 frames of the control bound, 16 KiB each.
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { it } from 'node:test'
import { encodeFrame, PROTOCOL_VERSION, silentLogger, type RequestHead } from '@burrow/protocol'
import type { WebSocket } from 'ws'
import { TunnelLink, type LinkEvents } from '../../src/broker/tunnel-link.js'
import type { TunnelWithAccount } from '../../src/store/store.js'

/** A WebSocket whose peer reads nothing: every byte sent stays buffered. */
class UnreadSocket extends EventEmitter {
  bufferedAmount = 0
  terminated = false
  send(bytes: Uint8Array): void {
    this.bufferedAmount += bytes.length
  }
  terminate(): void {
    this.terminated = true
  }
  close(): void {}
  ping(): void {}
}

const events: LinkEvents = {
  hello: () => ({
    version: PROTOCOL_VERSION,
    tunnelId: 't1',
    publicUrl: 'https://files--acme.example.test',
    resumeToken: 'token',
    resumed: false,
    graceSecs: 30,
    heartbeatMs: 30_000,
  }),
  draining: () => {},
  closed: () => {},
}

it('cuts off a client that reads nothing and says nothing once 64 MiB wait for it', () => {
  const ws = new UnreadSocket()
  const tunnel = { id: 't1', subdomain: 'files', accountSlug: 'acme' } as TunnelWithAccount
  const link = new TunnelLink(ws as unknown as WebSocket, tunnel, events, silentLogger)
  const hello = { type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'quiet/1' } } as const
  ws.emit('message', encodeFrame(hello), true)
  assert.equal(link.state, 'active')
  // Requests whose heads are near the 16 KiB limit, as agents may send them: bodiless OPENs.
  const head: RequestHead = {
    method: 'POST',
    path: '/mcp',
    headers: [['x-padding', 'p'.repeat(16_000)]],
  }
  let opened = 0
  while (!ws.terminated && opened < 9_000) {
    link.mux.open(head, undefined, true)
    opened++
    ws.emit('pong') // the client keeps its heartbeat alive without reading
  }
  assert.ok(ws.terminated, `${ws.bufferedAmount} bytes waited for a client that never read`)
  assert.ok(ws.bufferedAmount <= 64 * 1024 * 1024 + 20_000, `${ws.bufferedAmount} bytes waited`)
})
