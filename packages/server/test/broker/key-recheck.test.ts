// The check of connected clients' keys a node makes in case it missed a `disconnect` event: a
// connection whose key is no longer the tunnel's is closed, one with the current key stays (the
// owner's new client is not cut off with the old one), and so does one whose key was checked
// after the database was read (it may hold a key newer than what was read).
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { recheckKeys } from '../../src/broker/key-recheck.js'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import { WebSocket, WebSocketServer } from 'ws'

it('closes the connections with a rotated key or a deleted tunnel, and only those', async () => {
  let now = 1_000
  const r = new TunnelRegistry({
    clock: () => now,
    tokens: new ResumeTokens('test secret'),
    graceMs: 30_000,
    heartbeatMs: 60_000,
    publicUrl: (t) => `https://${t.subdomain}--${t.accountSlug}.example.test/mcp`,
    log: silentLogger,
    touch: async () => {},
  })
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((resolve) => wss.once('listening', resolve))
  const { port } = wss.address() as { port: number }
  const attachOne = async (id: string, keyHash: string, checkedFrom = now) => {
    const accepted = new Promise<import('ws').WebSocket>((resolve) =>
      wss.once('connection', resolve),
    )
    const client = new WebSocket(`ws://127.0.0.1:${port}`)
    const closed = new Promise<number>((resolve) => client.once('close', resolve))
    const tunnel = { id, subdomain: id, accountSlug: 'acme' } as TunnelWithAccount
    r.attach(await accepted, tunnel, undefined, checkedFrom, keyHash)
    return { client, closed }
  }
  try {
    const old = await attachOne('tun_a', 'old')
    const current = await attachOne('tun_a', 'new')
    const deleted = await attachOne('tun_gone', 'k')
    // Checked after the read began: kept this round although its key is not what was read.
    let late: Awaited<ReturnType<typeof attachOne>> | undefined
    now += 10
    const cut = await recheckKeys({
      registry: r,
      log: silentLogger,
      keyHashes: async (ids) => {
        assert.deepEqual([...ids].sort(), ['tun_a', 'tun_gone'])
        late = await attachOne('tun_a', 'newer', now)
        return new Map([['tun_a', 'new']])
      },
    })
    assert.equal(cut, 2)
    assert.equal(await old.closed, 4001)
    assert.equal(await deleted.closed, 4001)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(current.client.readyState, WebSocket.OPEN)
    assert.equal(late!.client.readyState, WebSocket.OPEN)
    current.client.close()
    late!.client.close()
    await Promise.all([current.closed, late!.closed])
  } finally {
    r.closeAll()
    wss.close()
  }
})
