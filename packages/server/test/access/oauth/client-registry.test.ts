/**
 * Clients registered (or documents cached) before today's rules on redirect URIs and names are
 * held to them when they are used: a redirect URI with a user in front of its host, or a name
 * with a bidirectional override, stored by an older burrowd, never reaches the consent page.
 * The registry's store is the real one (SQLite always, PostgreSQL when TEST_DATABASE_URL is set).
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { ClientRegistry } from '../../../src/access/oauth/client-registry.js'
import { OauthClientStore } from '../../../src/store/oauth-client-store.js'
import { openStore } from '../../../src/store/open-store.js'
import type { Store } from '../../../src/store/store.js'
import { UrlGuard } from '../../../src/webhooks/url-guard.js'
import { testBackends, type TestDatabase } from '../../helpers/test-databases.js'

const SPOOFING = 'https://claude.ai@evil.example/cb'
const TURNED = 'https://evil.example/\u202ebc'
const GOOD = 'https://client.example/cb'

describe('clients stored under older rules', () => {
  for (const backend of testBackends()) {
    describe(`on ${backend.name}`, () => {
      let database: TestDatabase
      let store: Store
      let clients: OauthClientStore
      let guard: UrlGuard
      let registry: ClientRegistry

      beforeEach(async () => {
        database = await backend.create()
        store = await openStore(database.config)
        clients = new OauthClientStore(store.db)
        guard = new UrlGuard({ allowPrivate: false })
        registry = new ClientRegistry(clients, guard)
      })

      afterEach(async () => {
        await guard.close()
        await store.close()
        await database.drop()
      })

      it('leaves out redirect URIs and names that would no longer be accepted', async () => {
        const now = new Date()
        await clients.put(
          {
            clientId: 'dcr_0123456789abcdef0123456789abcdef',
            kind: 'dcr',
            name: 'Claude \u202eevil',
            redirectUris: [SPOOFING, TURNED, GOOD],
            fetchedAt: now,
          },
          '{}',
          now,
        )
        const dcr = await registry.find('dcr_0123456789abcdef0123456789abcdef', '192.0.2.1')
        assert.deepEqual(dcr.redirectUris, [GOOD])
        assert.equal(dcr.name, 'an MCP client')

        // A document cached an hour ago or less is used without being fetched: held to them too.
        const url = 'https://client.example/client.json'
        await clients.put(
          {
            clientId: url,
            kind: 'cimd',
            name: '\u2067Claude',
            redirectUris: [SPOOFING],
            fetchedAt: now,
          },
          '{}',
          now,
        )
        const cimd = await registry.find(url, '192.0.2.1')
        assert.deepEqual(cimd.redirectUris, [])
        assert.equal(cimd.name, 'client.example')

        // What passes is returned as stored.
        await clients.put(
          { clientId: 'dcr_ok', kind: 'dcr', name: 'Cursor', redirectUris: [GOOD], fetchedAt: now },
          '{}',
          now,
        )
        assert.deepEqual(await registry.find('dcr_ok', '192.0.2.1'), await clients.get('dcr_ok'))
      })
    })
  }
})
