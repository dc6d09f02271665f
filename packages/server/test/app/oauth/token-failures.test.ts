/**
 * Junk at the token and revocation endpoints, against the authorization server over a real store
 * (SQLite, and PostgreSQL when TEST_DATABASE_URL is set) on a real socket, with the rate limits'
 * clock injected: a malformed refresh token or code is refused before any database round trip;
 * failed requests are bounded per client address (IPv6: per /64), concurrent ones included,
 * while other addresses and a client's own refreshes go on.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AccessTokens } from '../../../src/access/oauth/access-tokens.js'
import { TOKEN_FAILURES_PER_MINUTE } from '../../../src/access/oauth/token-failure-limit.js'
import { AuthorizationServer } from '../../../src/app/oauth/authorization-server.js'
import { newRefreshToken, refreshExpiry } from '../../../src/app/oauth/refresh-token.js'
import { RateLimiter } from '../../../src/http/rate-limiter.js'
import { hashKey } from '../../../src/store/hash-key.js'
import { OauthGrantStore } from '../../../src/store/oauth-grant-store.js'
import { openStore } from '../../../src/store/open-store.js'
import type { Store } from '../../../src/store/store.js'
import { testBackends, type TestDatabase } from '../../helpers/test-databases.js'
import { serveAuthorizationServer, type Served } from './served-authorization-server.js'

const RESOURCE = 'https://docs--acme.tunnels.example/mcp'
const BUDGET = TOKEN_FAILURES_PER_MINUTE

interface Answer {
  status: number
  retryAfter: string | null
  body: { error?: string; error_description?: string; refresh_token?: string }
}

for (const backend of testBackends()) {
  describe(`token endpoint junk on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let served: Served
    let base: string
    let clock: number
    /** Grant store methods the server called, in order. */
    let calls: string[]
    /** While true, every grant store method throws (the database is down). */
    let broken: boolean
    let grantId: string

    beforeEach(async () => {
      clock = Date.parse('2026-11-25T10:00:00.000Z')
      calls = []
      broken = false
      database = await backend.create()
      store = await openStore(database.config)
      const accountId = (await store.createAccount({ email: 'a@example.com', slug: 'acme' })).id
      const tunnelId = (await store.createTunnel({ accountId, name: 'docs' })).tunnel.id
      const grants = new OauthGrantStore(store.db)
      grantId = await grants.approve({
        tunnelId,
        accountId,
        clientId: 'dcr_x',
        clientName: 'Claude',
        approvedBy: 'a@example.com',
        resource: RESOURCE,
        codeHash: 'h',
        redirectUri: 'https://claude.ai/api/mcp/auth_callback',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(Date.now() + 60_000),
      })
      const counted = new Proxy(grants, {
        get(target, name) {
          const value: unknown = Reflect.get(target, name, target)
          if (typeof value !== 'function') return value
          return (...args: unknown[]) => {
            calls.push(String(name))
            if (broken) throw new Error('the database is down')
            return (value as (...a: unknown[]) => unknown).apply(target, args)
          }
        },
      })
      const server = new AuthorizationServer({
        issuer: 'https://tunnels.example',
        https: false,
        services: {} as never,
        registry: {} as never,
        grants: counted,
        tokens: new AccessTokens({
          secret: 's'.repeat(43),
          issuer: 'https://tunnels.example',
          grants,
        }),
        settings: { get: () => Promise.resolve({ mode: 'oauth' }) } as never,
        labelOf: () => Promise.resolve(null),
        tunnelByLabel: () => Promise.resolve(null),
        limits: { limiter: (_name, o) => new RateLimiter({ ...o, now: () => clock }) },
      })
      served = await serveAuthorizationServer(server)
      base = served.base
    })

    afterEach(async () => {
      await served.close()
      await store.close()
      await database.drop()
    })

    /** POST `fields` to `path` from client `address` (loopback is a trusted proxy by default). */
    const post = async (
      path: string,
      address: string,
      fields: Record<string, string>,
    ): Promise<Answer> => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': address,
        },
        body: new URLSearchParams(fields),
      })
      const text = await res.text()
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: text === '' ? {} : (JSON.parse(text) as Answer['body']),
      }
    }
    const junkRefresh = (address: string) =>
      post('/oauth/token', address, {
        grant_type: 'refresh_token',
        refresh_token: newRefreshToken(),
        client_id: 'dcr_x',
      })
    const junkCode = (address: string) =>
      post('/oauth/token', address, {
        grant_type: 'authorization_code',
        code: newRefreshToken().slice(4),
        client_id: 'dcr_x',
        code_verifier: 'v'.repeat(43),
      })
    const assertRefused = (answer: Answer) => {
      assert.equal(answer.status, 429, JSON.stringify(answer.body))
      assert.match(answer.retryAfter ?? '', /^[1-9]\d*$/)
      assert.equal(answer.body.error, 'invalid_request')
      assert.match(answer.body.error_description ?? '', /too many failed token requests/)
    }
    /** Give the grant `token` as its current refresh token. */
    const holding = async (token: string) => {
      await new OauthGrantStore(store.db).setRefresh(grantId, hashKey(token), refreshExpiry())
    }

    it('refuses malformed refresh tokens and codes without a database round trip', async () => {
      const valid = newRefreshToken()
      for (const token of [
        '',
        'brt_nope',
        valid.slice(0, -1),
        `${valid}A`,
        `brt_${'!'.repeat(43)}`,
        valid.replace('brt_', 'brx_'),
        'x'.repeat(20_000),
      ]) {
        const answer = await post('/oauth/token', '203.0.113.7', {
          grant_type: 'refresh_token',
          refresh_token: token,
        })
        assert.equal(answer.status, 400, token)
        assert.equal(answer.body.error, 'invalid_grant')
      }
      for (const code of ['', 'short', 'a'.repeat(44), `${'a'.repeat(42)}!`, valid]) {
        const answer = await post('/oauth/token', '203.0.113.7', {
          grant_type: 'authorization_code',
          code,
          client_id: 'dcr_x',
          code_verifier: 'v'.repeat(43),
        })
        assert.equal(answer.status, 400, code)
        assert.equal(answer.body.error, 'invalid_grant')
      }
      // RFC 7009: a token nobody issued is answered as revoked, and looked up only by its shape.
      for (const token of ['not-a-token', 'a.b.c', `${valid}A`]) {
        assert.equal((await post('/oauth/revoke', '203.0.113.7', { token })).status, 200)
      }
      assert.equal(calls.join(), '', 'nothing was looked up')
      // A well-formed one is looked up.
      assert.equal((await junkRefresh('203.0.113.7')).status, 400)
      assert.ok(calls.includes('byRefresh'), calls.join())
    })

    it('refuses an address past its failures, before any lookup; other addresses go on', async () => {
      for (let i = 0; i < BUDGET; i++) {
        const answer = await (i % 3 === 0 ? junkCode : junkRefresh)('203.0.113.7')
        assert.equal(answer.status, 400, `junk ${i + 1}: ${JSON.stringify(answer.body)}`)
        assert.equal(answer.body.error, 'invalid_grant')
      }
      const looked = calls.length
      assertRefused(await junkRefresh('203.0.113.7'))
      assertRefused(await junkCode('203.0.113.7'))
      assertRefused(await post('/oauth/revoke', '203.0.113.7', { token: newRefreshToken() }))
      assertRefused(await post('/oauth/token', '203.0.113.7', { grant_type: 'client_credentials' }))
      assert.equal(calls.length, looked, 'a refused request looks nothing up')
      assert.equal((await junkRefresh('198.51.100.9')).status, 400)
      // A client elsewhere refreshes as before.
      const refresh = newRefreshToken()
      await holding(refresh)
      const refreshed = await post('/oauth/token', '198.51.100.9', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: 'dcr_x',
      })
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body))
      // The budget refills over a minute.
      clock += 60_000
      assert.equal((await junkRefresh('203.0.113.7')).status, 400)
    })

    it('keys IPv6 clients by their /64', async () => {
      for (let i = 0; i < BUDGET; i++) {
        assert.equal((await junkRefresh(`2001:db8:1:2::${(i + 1).toString(16)}`)).status, 400)
      }
      assertRefused(await junkRefresh('2001:db8:1:2:ffff:ffff:ffff:ffff'))
      assert.equal((await junkRefresh('2001:db8:1:3::1')).status, 400)
    })

    it('spends the budget before the work: requests sent at once cannot all pass', async () => {
      const answers = await Promise.all(
        Array.from({ length: BUDGET * 3 }, () => junkRefresh('192.0.2.50')),
      )
      const statuses = answers.map((a) => a.status)
      assert.equal(statuses.filter((s) => s === 400).length, BUDGET)
      assert.equal(statuses.filter((s) => s === 429).length, BUDGET * 2)
      assert.equal(calls.filter((c) => c === 'byRefresh').length, BUDGET)
    })

    it('never counts a client’s refreshes, parallel ones included', async () => {
      let refresh = newRefreshToken()
      await holding(refresh)
      const fields = () => ({
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: 'dcr_x',
      })
      // An agent's parallel calls refresh at once with one token (the MCP SDKs do).
      const parallel = await Promise.all(
        Array.from({ length: 25 }, () => post('/oauth/token', '203.0.113.9', fields())),
      )
      assert.deepEqual(
        parallel.map((a) => a.status),
        parallel.map(() => 200),
      )
      refresh = parallel[0]!.body.refresh_token!
      for (let i = 1; i < 20; i++) {
        const answer = await post('/oauth/token', '203.0.113.9', fields())
        assert.equal(answer.status, 200, JSON.stringify(answer.body))
        refresh = answer.body.refresh_token!
      }
      // The address's whole budget of failures is still there.
      for (let i = 0; i < BUDGET; i++) {
        assert.equal((await junkRefresh('203.0.113.9')).status, 400, `junk ${i + 1}`)
      }
      assertRefused(await junkRefresh('203.0.113.9'))
    })

    it('does not count a fault of the server’s own', async () => {
      broken = true
      for (let i = 0; i < BUDGET + 5; i++) {
        assert.equal((await junkRefresh('203.0.113.11')).status, 500)
      }
      broken = false
      assert.equal((await junkRefresh('203.0.113.11')).status, 400)
    })
  })
}
