/**
 * A stranger floods the token endpoint from more IPv6 /64s than its failure limit remembers,
 * against the authorization server over a real store (SQLite, and PostgreSQL when
 * TEST_DATABASE_URL is set) on a real socket, with the limits' clock injected and their
 * `maxKeys` made small (burrowd's wiring passes its limits in the same way). Before, the flood
 * pushed the least recently used buckets out, spent or not: an address that had spent its 60
 * failures was given 60 more by sending from many /64s in between (found by a hostile review).
 * Now a spent address stays refused until its bucket refills, and the /64s past the cap share
 * their /48's budget of 60: a newcomer elsewhere is served at once, one in that /48 waits for
 * its `Retry-After`.
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

const BUDGET = TOKEN_FAILURES_PER_MINUTE
/** Addresses the failure limit gives a bucket of their own. */
const CAP = 8

interface Answer {
  status: number
  retryAfter: string | null
  body: { error?: string; error_description?: string; refresh_token?: string }
}

for (const backend of testBackends()) {
  describe(`token endpoint flooded from many addresses on ${backend.name}`, () => {
    let database: TestDatabase
    let store: Store
    let served: Served
    let base: string
    let clock: number
    let grantId: string

    beforeEach(async () => {
      clock = Date.parse('2026-11-25T10:00:00.000Z')
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
        resource: 'https://docs--acme.tunnels.example/mcp',
        codeHash: 'h',
        redirectUri: 'https://claude.ai/api/mcp/auth_callback',
        codeChallenge: 'c'.repeat(43),
        codeExpiresAt: new Date(Date.now() + 60_000),
      })
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
        limits: {
          limiter: (_name, o) => new RateLimiter({ ...o, now: () => clock, maxKeys: CAP }),
        },
      })
      served = await serveAuthorizationServer(server)
      base = served.base
    })

    afterEach(async () => {
      await served.close()
      await store.close()
      await database.drop()
    })

    /** POST a refresh of `token` from client `address` (loopback is a trusted proxy). */
    const refresh = async (address: string, token = newRefreshToken()): Promise<Answer> => {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': address,
        },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: 'dcr_x',
        }),
      })
      const text = await res.text()
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: text === '' ? {} : (JSON.parse(text) as Answer['body']),
      }
    }
    const assertRefused = (answer: Answer, retryAfter?: string) => {
      assert.equal(answer.status, 429, JSON.stringify(answer.body))
      if (retryAfter !== undefined) assert.equal(answer.retryAfter, retryAfter)
      assert.match(answer.body.error_description ?? '', /too many failed token requests/)
    }

    it('keeps a spent address refused, and throttles a /48 past the cap as one', async () => {
      for (let i = 0; i < BUDGET; i++) assert.equal((await refresh('203.0.113.7')).status, 400)
      assertRefused(await refresh('203.0.113.7'))
      // One failure from each of many /64s of one /48: the first take the places left, the rest
      // share one budget for the /48, then are refused before anything is looked up.
      const statuses: number[] = []
      for (let i = 0; i < CAP - 1 + BUDGET + 20; i++) {
        statuses.push((await refresh(`2001:db8:5:${(i + 1).toString(16)}::1`)).status)
      }
      assert.equal(statuses.filter((s) => s === 400).length, CAP - 1 + BUDGET)
      assert.equal(statuses.filter((s) => s === 429).length, 20)
      assertRefused(await refresh('203.0.113.7'))
      // A client elsewhere, new to the limit, refreshes at once.
      let token = newRefreshToken()
      const grants = new OauthGrantStore(store.db)
      await grants.setRefresh(grantId, hashKey(token), refreshExpiry())
      let refreshed = await refresh('192.0.2.44', token)
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body))
      // A client new to the limit in the flood's /48 waits with the flood: a second.
      token = refreshed.body.refresh_token!
      assertRefused(await refresh('2001:db8:5:ffff::1', token), '1')
      clock += 1_000
      refreshed = await refresh('2001:db8:5:ffff::1', token)
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body))
      // The spent address has refilled one failure in that second, not its whole budget.
      assert.equal((await refresh('203.0.113.7')).status, 400)
      assertRefused(await refresh('203.0.113.7'), '1')
    })
  })
}
