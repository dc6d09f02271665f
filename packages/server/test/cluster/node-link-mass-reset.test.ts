// A tunnel's client that goes away with thousands of forwarded requests in flight has them all
// reset at once on its channel of the node link, in one turn of the holder's event loop: the
// other tunnels' requests on the link go on. The bound on control frames a tunnel connection
// leaves unread (it cuts off a client that never reads) counted them, and closed the whole link,
// resetting every tenant's requests between the two nodes.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import {
  MAX_QUEUED_CONTROL_FRAMES,
  silentLogger,
  TunnelMux,
  type MuxStream,
} from '@burrow/protocol'
import { NodeLinks } from '../../src/cluster/node-links.js'
import { pipeStreams } from '../../src/cluster/stream-pipe.js'

const FLOOD = MAX_QUEUED_CONTROL_FRAMES + 50

let server: Server
let url: string
let holder: NodeLinks
let forwarder: NodeLinks
/** The holder's connection to the mass tunnel's client (an in-process pair of muxes). */
let tunnel: TunnelMux
let victimAtHolder: MuxStream | null = null
let arrived = 0
let allArrived: () => void = () => {}

before(async () => {
  let client: TunnelMux | null = null
  tunnel = new TunnelMux({
    role: 'broker',
    transport: { send: (bytes, done) => (setImmediate(() => client?.receive(bytes)), done?.()) },
  })
  client = new TunnelMux({
    role: 'client',
    transport: { send: (bytes, done) => (setImmediate(() => tunnel.receive(bytes)), done?.()) },
    // The local server never answers: every request stays in flight.
    onOpen: () => {},
  })
  holder = new NodeLinks({
    nodeId: 'node-b',
    secret: 'cluster-secret',
    log: silentLogger,
    onStream: (inbound, head, body, fin) => {
      if (head.path === '/victim') {
        victimAtHolder = inbound
        return
      }
      pipeStreams(inbound, tunnel.open(head, body, fin))
      if (++arrived === FLOOD) allArrived()
    },
  })
  forwarder = new NodeLinks({
    nodeId: 'node-a',
    secret: 'cluster-secret',
    log: silentLogger,
    onStream: () => assert.fail('the forwarder serves nothing'),
  })
  server = createServer()
  server.on('upgrade', (req, socket, head) => holder.handleUpgrade(req, socket, head))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

after(async () => {
  forwarder.close()
  holder.close()
  await new Promise((r) => server.close(r))
})

it("one tunnel's requests all reset at once do not close the link for another tunnel's", async () => {
  const link = await forwarder.link(url, 'node-b')
  const victim = link.open(
    'tun_victim',
    { method: 'GET', path: '/victim', headers: [] },
    undefined,
    true,
  )
  let victimReset = ''
  const outcome = new Promise<number | string>((resolve) => {
    victim.onResponse = (h) => resolve(h.status)
    victim.onReset = (_code, reason) => resolve((victimReset = reason))
  })

  const everyone = new Promise<void>((r) => (allArrived = r))
  let resets = 0
  for (let i = 0; i < FLOOD; i++) {
    const stream = link.open(
      'tun_mass',
      { method: 'POST', path: '/mcp', headers: [] },
      Buffer.from('{}'),
      true,
    )
    stream.onReset = () => void resets++
    // Requests arrive over many turns, as agents' requests do.
    if (i % 500 === 499) await new Promise((r) => setImmediate(r))
  }
  await everyone
  assert.ok(victimAtHolder, 'the victim request reached the holder')

  // The mass tunnel's client goes away: every one of its streams is reset in one turn.
  tunnel.close('tunnel connection closed')
  while (resets < FLOOD && victimReset === '') await new Promise((r) => setTimeout(r, 10))

  victimAtHolder.respond({ status: 200, headers: [] }, undefined, true)
  assert.equal(await outcome, 200, "the other tunnel's request was answered, not reset")
  assert.equal(resets, FLOOD, "every one of the mass tunnel's requests was reset")
})
