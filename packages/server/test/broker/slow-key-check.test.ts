// A tunnel key rotated while a connection with the old key is between its key check and its
// attach (found by a hostile review): the registry remembers a revocation against such
// connections for a minute, and forgets it on the next revocation of any tunnel after that. A
// connection whose check read the old key and then took longer than that to arrive (the reads
// that follow the key's, of the tunnel's custom URL and access mode, each waiting up to
// BURROW_DATABASE_TIMEOUT_SECS on a stalled database) was welcomed, and on one node (no
// cluster, so no periodic key check) served the tunnel with the old key for as long as it
// stayed connected. Now a check older than what the registry remembers is not trusted: the
// client is told to come back, and its key is checked again. Real store, broker and registry on
// a real port; only the step after the key's read is held, and the registry's clock moved.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { silentLogger } from '@burrow/protocol'
import { openFake, within } from '../../../../test/helpers/fake-client.js'
import { Broker } from '../../src/broker/broker.js'
import { ResumeTokens } from '../../src/broker/resume-token.js'
import { TunnelRegistry } from '../../src/broker/tunnel-registry.js'
import { ClientAddresses } from '../../src/http/client-addresses.js'
import { openStore } from '../../src/store/open-store.js'
import type { TunnelWithAccount } from '../../src/store/store.js'
import { testBackends } from '../helpers/test-databases.js'

for (const backend of testBackends()) {
  describe(`a key rotated while its old key's connection is on its way (${backend.name})`, () => {
    it('is not welcomed however long the connection took after its key was read', async () => {
      const database = await backend.create()
      const store = await openStore(database.config)
      let now = 1_000_000
      const registry = new TunnelRegistry({
        clock: () => now,
        tokens: new ResumeTokens('test secret'),
        graceMs: 30_000,
        heartbeatMs: 60_000,
        publicUrl: (t) => `http://${t.subdomain}--${t.accountSlug}.localhost/mcp`,
        log: silentLogger,
        touch: async () => {},
      })
      /** The held step, once the key's read is done: released by the test. */
      let read: () => void = () => {}
      const wasRead = new Promise<void>((resolve) => (read = resolve))
      let release: () => void = () => {}
      const held = new Promise<void>((resolve) => (release = resolve))
      let hold = true
      const broker = new Broker({
        findTunnelByKey: async (key): Promise<TunnelWithAccount | undefined> => {
          const tunnel = await store.findTunnelByKey(key)
          if (hold) {
            hold = false
            read()
            await held
          }
          return tunnel
        },
        registry,
        addresses: new ClientAddresses(),
        log: silentLogger,
      })
      const server: Server = createServer((_req, res) => res.writeHead(404).end())
      server.on('upgrade', (req, socket, head) => void broker.handleUpgrade(req, socket, head))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
      try {
        const account = await store.createAccount({ email: 'a@example.com', slug: 'acme' })
        const target = await store.createTunnel({ accountId: account.id, name: 'target' })
        const other = await store.createTunnel({ accountId: account.id, name: 'other' })

        const old = openFake(url, target.key)
        await within(wasRead, 10_000, 'the old key to be read')
        // The owner rotates the key; the rotation's cut-off comes (as the cluster event does).
        await store.rotateTunnelKey(account.id, target.tunnel.id)
        registry.disconnect(target.tunnel.id, 'the tunnel key was rotated')
        // A minute and more later, another tunnel's key is rotated too.
        now += 61_000
        await store.rotateTunnelKey(account.id, other.tunnel.id)
        registry.disconnect(other.tunnel.id, 'the tunnel key was rotated')
        // Only now does the connection with the old key arrive.
        release()
        const outcome = await within(
          old.ready.then(
            () => 'welcomed',
            (err: Error) => err.message,
          ),
          10_000,
          'the old key connection to be welcomed or refused',
        )
        assert.notEqual(outcome, 'welcomed', 'a connection with the rotated key was welcomed')
        // Refused as a lookup that failed is, before any 101: the client retries, and then...
        assert.match(outcome, /Unexpected server response: 503/)
        assert.equal(registry.isOnline(target.tunnel.id), false)
        await old.close()
        // ...its key is checked again, and refused for good.
        const again = openFake(url, target.key)
        assert.match(
          await again.ready.then(
            () => 'welcomed',
            (err: Error) => err.message,
          ),
          /Unexpected server response: 401/,
        )
        await again.close()
        // The owner's client with the new key, however, connects as ever.
        const rotated = await store.rotateTunnelKey(account.id, target.tunnel.id)
        registry.disconnect(target.tunnel.id, 'the tunnel key was rotated')
        now += 1
        const current = openFake(url, rotated.key)
        await within(current.ready, 10_000, 'the new key to be welcomed')
        await current.close()
      } finally {
        registry.closeAll()
        await new Promise((resolve) => server.close(resolve))
        await store.close()
        await database.drop()
      }
    })
  })
}
