// The registry's part in a drain: a client welcomed after the node began to drain (its upgrade
// passed before the drain did) is told to go as well, after its welcome, or the node would hold
// its tunnel until it exits. And in a key's revocation: a connection whose key was checked
// before the revocation is closed even when it is attached after it.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { GOAWAY_CODE, PROTOCOL_VERSION, silentLogger } from '@burrow/protocol'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import type { TunnelLink } from '../../src/broker/tunnel-link.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import { WebSocket, WebSocketServer } from 'ws'

/** A link as the registry sees it, recording the GOAWAYs it is sent. */
function fakeLink(id: string) {
  const goaways: { code: number; after: number }[] = []
  const link = {
    tunnel: { id, subdomain: id, accountSlug: 'acme' },
    sessionId: null,
    state: 'active',
    goaway: (code: number, after = 0) => goaways.push({ code, after }),
    beat: () => {},
    close: () => {},
  }
  return { link: link as unknown as TunnelLink, goaways }
}

const registry = (clock?: () => number) =>
  new TunnelRegistry({
    ...(clock ? { clock } : {}),
    tokens: new ResumeTokens('test secret'),
    graceMs: 30_000,
    heartbeatMs: 60_000,
    publicUrl: (t) => `https://${t.subdomain}--${t.accountSlug}.example.test/mcp`,
    log: silentLogger,
    touch: async () => {},
  })

const hello = { version: PROTOCOL_VERSION, agent: 'test' }

it('tells a client welcomed after the drain began to go, after its welcome', async () => {
  const r = registry()
  r.drainAll(0)
  const late = fakeLink('t1')
  const welcome = r.hello(late.link, hello)
  assert.equal(welcome.tunnelId, 't1')
  assert.deepEqual(late.goaways, [], 'the GOAWAY must follow the welcome, not precede it')
  await Promise.resolve()
  assert.deepEqual(late.goaways, [{ code: GOAWAY_CODE.drain, after: 0 }])
})

it('sends no GOAWAY to a client welcomed while the node is not draining', async () => {
  const r = registry()
  const link = fakeLink('t2')
  r.hello(link.link, hello)
  await Promise.resolve()
  assert.deepEqual(link.goaways, [])
})

it('closes a connection whose key was checked before the key was revoked, attached after', async () => {
  let now = 1_000
  const r = registry(() => now)
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => wss.once('listening', resolve))
  const { port } = wss.address() as { port: number }
  const tunnel = { id: 'tun_r', subdomain: 'r', accountSlug: 'acme' } as TunnelWithAccount
  const attachOne = async (checkedFrom: number) => {
    const accepted = new Promise<import('ws').WebSocket>((resolve) =>
      wss.once('connection', resolve),
    )
    const client = new WebSocket(`ws://127.0.0.1:${port}`)
    const closed = new Promise<number>((resolve) => client.once('close', resolve))
    r.attach(await accepted, tunnel, undefined, checkedFrom)
    return { client, closed }
  }
  try {
    const checkedFrom = now
    now += 5
    r.disconnect(tunnel.id, 'key rotated')
    now += 5
    const stale = await attachOne(checkedFrom)
    assert.equal(await stale.closed, 4001)
    // A key checked after the revocation connects.
    const fresh = await attachOne(now)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(fresh.client.readyState, WebSocket.OPEN)
    fresh.client.close()
    await fresh.closed
    // Checked longer ago than revocations are remembered: told to connect again, not welcomed.
    now += 61_000
    r.disconnect('tun_other', 'key rotated')
    const forgotten = await attachOne(checkedFrom + 10)
    assert.equal(await forgotten.closed, 1013)
  } finally {
    r.closeAll()
    wss.close()
  }
})
