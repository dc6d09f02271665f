/**
 * What the token endpoint binds a code and a refresh token to, against the authorization server
 * over a real store (SQLite, and PostgreSQL when TEST_DATABASE_URL is set) on a real socket, as
 * OAuth 2.1 (draft-15) asks of public clients (docs/decisions.md, "OAuth against the letter of
 * the specs"): a code is redeemed only with its client's `client_id`; a `redirect_uri` sent with
 * it must be the authorization request's, byte for byte, and may be left out (§10.2: PKCE took
 * its place); a refresh token names its client when `client_id` is sent (§4.3.1), and may be
 * refreshed without it. Every mismatch is `invalid_grant` and revokes the grant.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AccessTokens } from '../../../src/access/oauth/access-tokens.js'
import { AuthorizationServer } from '../../../src/app/oauth/authorization-server.js'
import { newAuthorizationCode } from '../../../src/app/oauth/authorization-code.js'
import { hashKey } from '../../../src/store/hash-key.js'
import { OauthGrantStore } from '../../../src/store/oauth-grant-store.js'
import { openStore } from '../../../src/store/open-store.js'
import type { Store } from '../../../src/store/store.js'
import { testBackends, type TestDatabase } from '../../helpers/test-databases.js'
import { serveAuthorizationServer, type Served } from './served-authorization-server.js'

const RESOURCE = 'https://docs--acme.tunnels.example/mcp'
const CALLBACK = 'https://claude.ai/api/mcp/auth_callback'

interface Answer {
  status: number
  body: { error?: string; error_description?: string; refresh_token?: string }
}

for (const backend of testBackends()) {
  describe(`token bindings on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let grants: OauthGrantStore
    let served: Served
    let base: string
    let accountId: string
    let tunnelId: string

    beforeEach(async () => {
      database = await backend.create()
      store = await openStore(database.config)
      accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      tunnelId = (await store.createTunnel({ accountId, name: 'docs' })).tunnel.id
      grants = new OauthGrantStore(store.db)
      const server = new AuthorizationServer({
        issuer: 'https://tunnels.example',
        https: false,
        services: {} as never,
        registry: {} as never,
        grants,
        tokens: new AccessTokens({
          secret: 's'.repeat(43),
          issuer: 'https://tunnels.example',
          grants,
        }),
        settings: { get: () => Promise.resolve({ mode: 'oauth' }) } as never,
        labelOf: () => Promise.resolve(null),
        tunnelByLabel: () => Promise.resolve(null),
      })
      served = await serveAuthorizationServer(server)
      base = served.base
    })

    afterEach(async () => {
      await served.close()
      await store.close()
      await database.drop()
    })

    const token = async (fields: Record<string, string>): Promise<Answer> => {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      })
      return { status: res.status, body: (await res.json()) as Answer['body'] }
    }

    /** The owner approved client `dcr_a` (redirect URI `CALLBACK`): its grant and code. */
    const approved = async () => {
      const code = newAuthorizationCode()
      const verifier = randomBytes(32).toString('base64url')
      const grantId = await grants.approve({
        tunnelId,
        accountId,
        clientId: 'dcr_a',
        clientName: 'Claude',
        approvedBy: 'a@example.com',
        resource: RESOURCE,
        codeHash: hashKey(code),
        redirectUri: CALLBACK,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeExpiresAt: new Date(Date.now() + 60_000),
      })
      const redemption = {
        grant_type: 'authorization_code',
        code,
        client_id: 'dcr_a',
        code_verifier: verifier,
      }
      return { grantId, redemption }
    }

    const assertRevoked = async (answer: Answer, grantId: string, why: RegExp) => {
      assert.equal(answer.status, 400, JSON.stringify(answer.body))
      assert.equal(answer.body.error, 'invalid_grant')
      assert.match(answer.body.error_description ?? '', why)
      assert.equal(await grants.get(grantId), undefined, 'the grant is revoked')
    }

    it('redeems a code with its redirect_uri or without it; another one revokes the grant', async () => {
      const same = await approved()
      assert.equal((await token({ ...same.redemption, redirect_uri: CALLBACK })).status, 200)
      // OAuth 2.1 §10.2: a client following it sends no redirect_uri (PKCE binds the code).
      const left = await approved()
      assert.equal((await token(left.redemption)).status, 200)
      for (const other of [`${CALLBACK}/`, CALLBACK.toUpperCase(), `${CALLBACK}?x=1`, ' ']) {
        const { grantId, redemption } = await approved()
        const answer = await token({ ...redemption, redirect_uri: other })
        await assertRevoked(answer, grantId, /redirect_uri differs from the authorization request/)
      }
    })

    it('redeems a code only with its own client_id', async () => {
      const { grantId, redemption } = await approved()
      const anonymous = Object.fromEntries(
        Object.entries(redemption).filter(([name]) => name !== 'client_id'),
      )
      await assertRevoked(await token(anonymous), grantId, /issued to another client/)
      const other = await approved()
      const answer = await token({ ...other.redemption, client_id: 'dcr_b' })
      await assertRevoked(answer, other.grantId, /issued to another client/)
    })

    it('refreshes with the client_id of the grant or without one; another client’s revokes it', async () => {
      const { grantId, redemption } = await approved()
      const first = await token(redemption)
      assert.equal(first.status, 200)
      const named = await token({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token!,
        client_id: 'dcr_a',
      })
      assert.equal(named.status, 200)
      // OAuth 2.1 §4.3.1: the binding is checked "if a client_id is included in the request".
      const unnamed = await token({
        grant_type: 'refresh_token',
        refresh_token: named.body.refresh_token!,
      })
      assert.equal(unnamed.status, 200)
      const stolen = await token({
        grant_type: 'refresh_token',
        refresh_token: unnamed.body.refresh_token!,
        client_id: 'dcr_b',
      })
      await assertRevoked(stolen, grantId, /issued to another client/)
      const after = await token({
        grant_type: 'refresh_token',
        refresh_token: unnamed.body.refresh_token!,
        client_id: 'dcr_a',
      })
      assert.equal(after.status, 400, 'the grant is gone for its own client too')
    })
  })
}
