/**
 * A key rotation, or a tunnel's deletion, whose write committed and whose next step failed (the read of the tunnel it
 * answers with: a database that went away just after the commit). Found by a hostile review: the
 * client with the old key was cut off only after that read, by the API or dashboard route, so
 * the failure skipped the cut-off; on one node (no periodic key check) the old key's client then
 * served the tunnel for as long as it stayed connected, although its key no longer opened it and
 * the owner's retry answered a rotation anew. Now the rotation cuts off the old key's clients as
 * soon as its write committed. So does a deletion whose usage hand-over (with several nodes)
 * failed after it: the route cut the client off after that step. Real store, services, broker and registry on a real port; the
 * registry hears the cut-off through the in-process cluster events, as one node does.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { connectFake, within } from '../../../../test/helpers/fake-client.js'
import { storeWebServices } from '../../src/app/store-web-services.js'
import { Broker } from '../../src/broker/broker.js'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import { LocalClusterEvents } from '../../src/cluster/cluster-events.js'
import { ClientAddresses } from '../../src/http/client-addresses.js'
import { openStore } from '../../src/store/open-store.js'
import { testBackends } from '../helpers/test-databases.js'

/** Store, services, broker and registry on a real port; the store's reads fail while `failing`. */
async function setUp(database: { config: Parameters<typeof openStore>[0] }, inheritFails = false) {
  const store = await openStore(database.config)
  const registry = new TunnelRegistry({
    tokens: new ResumeTokens('test secret'),
    graceMs: 30_000,
    heartbeatMs: 60_000,
    publicUrl: (t) => `http://${t.subdomain}--${t.accountSlug}.localhost/mcp`,
    log: silentLogger,
    touch: async () => {},
  })
  const events = new LocalClusterEvents()
  events.subscribe((event) => {
    if (event.type === 'disconnect') registry.disconnect(event.tunnelId, event.reason)
  })
  const broker = new Broker({
    findTunnelByKey: (key) => store.findTunnelByKey(key),
    registry,
    addresses: new ClientAddresses(),
    log: silentLogger,
  })
  const server: Server = createServer((_req, res) => res.writeHead(404).end())
  server.on('upgrade', (req, socket, head) => void broker.handleUpgrade(req, socket, head))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
  // The store, whose reads of a tunnel fail once `failing` is set (the database went away).
  const state = { failing: false }
  const flaky = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target)
      if (typeof value !== 'function') return value
      const fn = (value as (...args: unknown[]) => unknown).bind(target)
      if (prop !== 'getTunnel') return fn
      return (...args: unknown[]) =>
        state.failing
          ? Promise.reject(new Error('Connection terminated unexpectedly'))
          : fn(...args)
    },
  })
  const services = storeWebServices({
    store: flaky,
    live: {
      isOnline: (id) => registry.isOnline(id),
      disconnect: (id, reason) => void events.publish({ type: 'disconnect', tunnelId: id, reason }),
      evictAccount: (accountId) => void events.publish({ type: 'account', accountId }),
    },
    billing: {} as never,
    webhooks: {} as never,
    governance: {} as never,
    access: {} as never,
    meters: () => Promise.reject(new Error('not used')),
    publicUrl: (sub, slug) => `https://${sub}--${slug}.burrow.test`,
    ...(inheritFails
      ? { inheritUsage: () => Promise.reject(new Error('Connection is closed.')) }
      : {}),
  })
  const close = async () => {
    registry.closeAll()
    await new Promise((resolve) => server.close(resolve))
    await store.close()
  }
  return { store, registry, services, url, state, close }
}

for (const backend of testBackends()) {
  describe(`a key rotation or deletion that fails after its write (${backend.name})`, () => {
    it("still cuts off the old key's client", async () => {
      const database = await backend.create()
      const { store, registry, services, url, state, close } = await setUp(database)
      try {
        const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
        const made = await services.tunnels.create(account.id, { name: 'leaked' })
        const old = await connectFake(url, made.key)
        state.failing = true
        await assert.rejects(
          services.tunnels.rotateKey(account.id, made.tunnel.id),
          /Connection terminated/,
        )
        state.failing = false
        // The rotation committed: the old key opens nothing now...
        assert.equal(await store.findTunnelByKey(made.key), undefined)
        // ...and its client, already connected, is cut off.
        const closed = await within(old.closed, 5_000, "the old key's client to be cut off")
        assert.equal(closed.code, 4001)
        assert.equal(registry.isOnline(made.tunnel.id), false)
      } finally {
        await close()
        await database.drop()
      }
    })

    it("cuts off a deleted tunnel's client though the usage hand-over failed", async () => {
      const database = await backend.create()
      const { store, registry, services, url, close } = await setUp(database, true)
      try {
        const account = await store.createAccount({ email: 'b@example.com', slug: 'bcme' })
        const plan = (id: string) =>
          store.db.updateTable('accounts').set({ plan: id }).where('id', '=', account.id).execute()
        // Free serves two: a third tunnel, stopped, starts serving when the first goes.
        await plan('pro')
        const first = await services.tunnels.create(account.id, { name: 'first' })
        for (const name of ['second', 'third']) await services.tunnels.create(account.id, { name })
        await plan('free')
        const client = await connectFake(url, first.key)
        await assert.rejects(services.tunnels.delete(account.id, first.tunnel.id), /closed/)
        assert.equal(await store.findTunnelByKey(first.key), undefined, 'the delete committed')
        const closed = await within(client.closed, 5_000, "the deleted tunnel's client to go")
        assert.equal(closed.code, 4001)
        assert.equal(registry.isOnline(first.tunnel.id), false)
      } finally {
        await close()
        await database.drop()
      }
    })
  })
}
