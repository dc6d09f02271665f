// An access mode changed while its client connects (found by a hostile review): the key lookup
// read the settings before the change (or from a node's cache the change had not reached yet),
// and the change's event came before the connection was attached. The client must end up told
// the new mode, in its WELCOME or in a NOTICE after it, not the old one for as long as it stays.
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  PROTOCOL_VERSION,
  silentLogger,
  type Frame,
} from '@burrow/protocol'
import { WebSocket, WebSocketServer } from 'ws'
import { WelcomeAccess } from '../../src/access/welcome-access.js'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import type { AccessMode, TunnelAccess } from '../../src/store/tunnel-access-row.js'

const urlOf = (id: string) => `http://localhost:7100/dashboard/tunnels/${id}/access`
let wss: WebSocketServer
let port = 0
let registry: TunnelRegistry
let welcomeAccess: WelcomeAccess
/** Settings reads under way, answered by the test in the order it chooses. */
let reads: ((mode: AccessMode) => void)[] = []

before(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => wss.once('listening', resolve))
  port = (wss.address() as { port: number }).port
  welcomeAccess = new WelcomeAccess(urlOf, silentLogger)
  welcomeAccess.use(
    () =>
      new Promise<TunnelAccess>((resolve) => reads.push((mode) => resolve({ mode, allowIps: [] }))),
  )
  registry = new TunnelRegistry({
    tokens: new ResumeTokens('test secret'),
    graceMs: 30_000,
    heartbeatMs: 60_000,
    publicUrl: (t) => `http://${t.subdomain}--${t.accountSlug}.localhost:7100`,
    log: silentLogger,
    touch: async () => {},
    access: (t) => welcomeAccess.noteFor(t),
  })
})

after(() => {
  registry.closeAll()
  wss.close()
})

const tunnelOf = (id: string) => ({ id, subdomain: id, accountSlug: 'acme' }) as TunnelWithAccount

/** A client of `tunnel` that says HELLO (naming `notice`): every access mode it is told, in order. */
async function connect(tunnel: TunnelWithAccount) {
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve))
  const ws = new WebSocket(`ws://127.0.0.1:${port}`)
  const frames: Frame[] = []
  const waiting: ((f: Frame) => void)[] = []
  ws.on('message', (data) => {
    const frame = decodeFrame(data as Buffer)
    const w = waiting.shift()
    if (w) w(frame)
    else frames.push(frame)
  })
  registry.attach(await accepted, tunnel)
  await new Promise((resolve) => ws.once('open', resolve))
  const next = () =>
    new Promise<Frame>((resolve) => {
      const f = frames.shift()
      if (f) resolve(f)
      else waiting.push(resolve)
    })
  const send = (frame: Frame) => ws.send(encodeFrame(frame))
  send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 't', features: ['notice'] } })
  /** The modes told so far (WELCOME's, then NOTICEs'), up to the PONG of a PING sent now. */
  const told = async () => {
    send({ type: 'ping', payload: 7 })
    const modes: (string | undefined)[] = []
    for (let f = await next(); f.type !== 'pong'; f = await next()) {
      if (f.type === 'welcome') modes.push(f.welcome.access?.mode)
      if (f.type === 'notice') modes.push(f.notice.access?.mode)
    }
    return modes
  }
  return { ws, told }
}

it('a change while the key lookup reads the settings: the later read is told', async () => {
  reads = []
  const tunnel = tunnelOf('tun_reading')
  const lookup = welcomeAccess.note(tunnel)
  // The owner changes the mode: the event comes while the lookup's read is under way.
  const changed = welcomeAccess.changed(tunnel.id, registry)
  reads[0]!('oauth') // what the lookup read: before the change
  await lookup
  const c = await connect(tunnel)
  assert.equal(reads.length, 2, 'the change is read again')
  reads[1]!('token')
  await changed
  const told = await c.told()
  assert.equal(told.at(-1), 'token', `told ${JSON.stringify(told)}`)
  c.ws.close()
})

it('a change after the key lookup, before the connection is attached: read again and told', async () => {
  reads = []
  const tunnel = tunnelOf('tun_attaching')
  const lookup = welcomeAccess.note(tunnel)
  reads[0]!('oauth')
  await lookup
  const changed = welcomeAccess.changed(tunnel.id, registry)
  assert.equal(reads.length, 2, 'the change is read again')
  reads[1]!('public')
  await changed
  const c = await connect(tunnel)
  assert.deepEqual(await c.told(), ['public'])
  c.ws.close()
})

it('a change of a tunnel this node never saw reads nothing', async () => {
  reads = []
  await welcomeAccess.changed('tun_elsewhere', registry)
  assert.equal(reads.length, 0)
})
