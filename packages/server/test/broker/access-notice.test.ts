// The tunnel's access in WELCOME, and NOTICE when it changes while the client is connected: sent
// only to clients that named `notice` in HELLO (an older client would take the unknown frame type
// for a protocol error), once per change, and never to a client that is not welcomed.
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  PROTOCOL_VERSION,
  silentLogger,
  type AccessNote,
  type Frame,
} from '@burrow/protocol'
import { WebSocket, WebSocketServer } from 'ws'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import type { TunnelWithAccount } from '../../src/store/store.js'

const modes = new Map<string, string>()
const urlOf = (id: string) => `http://localhost:7100/dashboard/tunnels/${id}/access`
let wss: WebSocketServer
let port = 0
let registry: TunnelRegistry

before(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => wss.once('listening', resolve))
  port = (wss.address() as { port: number }).port
  registry = new TunnelRegistry({
    tokens: new ResumeTokens('test secret'),
    graceMs: 30_000,
    heartbeatMs: 60_000,
    publicUrl: (t) => `http://${t.subdomain}--${t.accountSlug}.localhost:7100`,
    log: silentLogger,
    touch: async () => {},
    access: (t): AccessNote | undefined => {
      const mode = modes.get(t.id)
      return mode === undefined ? undefined : { mode, url: urlOf(t.id) }
    },
  })
})

after(() => {
  registry.closeAll()
  wss.close()
})

/** A raw tunnel client of tunnel `id`: its frames so far, and a way to wait for the next. */
async function connect(id: string) {
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
  const tunnel = { id, subdomain: id, accountSlug: 'acme' } as TunnelWithAccount
  registry.attach(await accepted, tunnel)
  await new Promise((resolve) => ws.once('open', resolve))
  const next = () =>
    new Promise<Frame>((resolve) => {
      const f = frames.shift()
      if (f) resolve(f)
      else waiting.push(resolve)
    })
  const send = (frame: Frame) => ws.send(encodeFrame(frame))
  /** Every frame up to the PONG answering a PING sent now: what the broker sent before it. */
  const drain = async () => {
    send({ type: 'ping', payload: 7 })
    const got: Frame[] = []
    for (let f = await next(); f.type !== 'pong'; f = await next()) got.push(f)
    return got
  }
  return { ws, next, send, drain }
}

it('a client that names notice: WELCOME carries the access, then one NOTICE per change', async () => {
  modes.set('tun_a', 'oauth')
  const c = await connect('tun_a')
  c.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 't', features: ['notice'] } })
  const welcome = await c.next()
  assert.equal(welcome.type, 'welcome')
  assert.deepEqual(welcome.type === 'welcome' && welcome.welcome.access, {
    mode: 'oauth',
    url: urlOf('tun_a'),
  })
  // The same mode again (an agent token revoked, say): nothing to tell.
  registry.tellAccess('tun_a', { mode: 'oauth', url: urlOf('tun_a') })
  registry.tellAccess('tun_a', { mode: 'token', url: urlOf('tun_a') })
  registry.tellAccess('tun_a', { mode: 'token', url: urlOf('tun_a') })
  registry.tellAccess('tun_a', { mode: 'public', url: urlOf('tun_a') })
  assert.deepEqual(await c.drain(), [
    { type: 'notice', notice: { access: { mode: 'token', url: urlOf('tun_a') } } },
    { type: 'notice', notice: { access: { mode: 'public', url: urlOf('tun_a') } } },
  ])
  // Another tunnel's change is not this client's.
  registry.tellAccess('tun_other', { mode: 'oauth' })
  assert.deepEqual(await c.drain(), [])
  c.ws.close()
})

it('an older client (no features) gets the WELCOME field, which it ignores, and never a NOTICE', async () => {
  modes.set('tun_b', 'token')
  const c = await connect('tun_b')
  c.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'burrow/0.1.0' } })
  const welcome = await c.next()
  assert.equal(welcome.type === 'welcome' && welcome.welcome.access?.mode, 'token')
  registry.tellAccess('tun_b', { mode: 'oauth' })
  assert.deepEqual(await c.drain(), [])
  c.ws.close()
})

it('a client not welcomed yet is told nothing; its WELCOME says the access of that moment', async () => {
  modes.set('tun_c', 'oauth')
  const c = await connect('tun_c')
  registry.tellAccess('tun_c', { mode: 'token' })
  modes.set('tun_c', 'token')
  c.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 't', features: ['notice'] } })
  const welcome = await c.next()
  assert.equal(welcome.type === 'welcome' && welcome.welcome.access?.mode, 'token')
  registry.tellAccess('tun_c', { mode: 'token' })
  assert.deepEqual(await c.drain(), [])
  c.ws.close()
})

it('a broker that knows no access sends no field', async () => {
  const c = await connect('tun_d')
  c.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 't', features: ['notice'] } })
  const welcome = await c.next()
  assert.equal(welcome.type === 'welcome' && 'access' in welcome.welcome, false)
  c.ws.close()
})
