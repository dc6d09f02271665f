/**
 * Tests of OAuth access tokens over a real store (SQLite, and PostgreSQL when TEST_DATABASE_URL
 * is set) with an injected clock: a token verifies for its own tunnel and resource only, stops
 * at its expiry and when its grant is revoked, and any change to it is refused.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AccessTokens, ACCESS_TOKEN_TTL_SECS } from '../../../src/access/oauth/access-tokens.js'
import { OauthGrantStore } from '../../../src/store/oauth-grant-store.js'
import { openStore } from '../../../src/store/open-store.js'
import type { Store } from '../../../src/store/store.js'
import { testBackends } from '../../helpers/test-databases.js'
import type { TestDatabase } from '../../helpers/test-databases.js'

const RESOURCE = 'https://docs--acme.tunnels.example/mcp'

for (const backend of testBackends()) {
  describe(`access tokens on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let clock: number
    let grants: OauthGrantStore
    let tokens: AccessTokens
    let grant: { id: string; accountId: string; clientId: string; resource: string }
    let tunnelId: string
    let otherTunnel: string

    beforeEach(async () => {
      clock = Date.parse('2026-11-25T10:00:00.000Z')
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'docs' })).tunnel.id
      otherTunnel = (await store.createTunnel({ accountId, name: 'wiki' })).tunnel.id
      grants = new OauthGrantStore(store.db, () => new Date(clock))
      const id = await grants.approve({
        tunnelId,
        accountId,
        clientId: 'dcr_x',
        clientName: 'Claude',
        approvedBy: 'a@example.com',
        resource: RESOURCE,
        codeHash: 'h',
        redirectUri: 'https://claude.ai/api/mcp/auth_callback',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(clock + 60_000),
      })
      grant = { id, accountId, clientId: 'dcr_x', resource: RESOURCE }
      tokens = new AccessTokens({
        secret: 's'.repeat(43),
        issuer: 'https://tunnels.example',
        grants,
        now: () => new Date(clock),
      })
    })

    afterEach(async () => {
      await store.close()
      await database.drop()
    })

    it('verifies for its tunnel and resource until it expires', async () => {
      const token = await tokens.issue(grant)
      assert.deepEqual(await tokens.verify(token, tunnelId, RESOURCE), {
        kind: 'oauth',
        id: grant.id,
        name: 'Claude',
      })
      assert.equal(await tokens.verify(token, otherTunnel, RESOURCE), null)
      assert.equal(
        await tokens.verify(token, tunnelId, 'https://wiki--acme.tunnels.example/mcp'),
        null,
      )
      assert.notEqual(await tokens.issue(grant), token, 'every token is new')
      clock += (ACCESS_TOKEN_TTL_SECS - 1) * 1000
      assert.notEqual(await tokens.verify(token, tunnelId, RESOURCE), null)
      clock += 2_000
      assert.equal(await tokens.verify(token, tunnelId, RESOURCE), null)
    })

    it('refuses tokens of a revoked grant, of another issuer or key, and altered ones', async () => {
      const token = await tokens.issue(grant)
      const foreign = new AccessTokens({
        secret: 't'.repeat(43),
        issuer: 'https://tunnels.example',
        grants,
        now: () => new Date(clock),
      })
      assert.equal(await tokens.verify(await foreign.issue(grant), tunnelId, RESOURCE), null)
      const otherIssuer = new AccessTokens({
        secret: 's'.repeat(43),
        issuer: 'https://elsewhere.example',
        grants,
        now: () => new Date(clock),
      })
      assert.equal(await tokens.verify(await otherIssuer.issue(grant), tunnelId, RESOURCE), null)
      const [h, p, s] = token.split('.') as [string, string, string]
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')
      for (const bad of [`${none}.${p}.`, `${h}.${p}.${s}x`, `${h}.${p}`, '', 'x'.repeat(5000)]) {
        assert.equal(await tokens.verify(bad, tunnelId, RESOURCE), null)
      }
      assert.equal(await tokens.grantOf(token), grant.id)
      await grants.revoke(null, grant.id)
      assert.equal(await tokens.verify(token, tunnelId, RESOURCE), null)
    })
  })
}
