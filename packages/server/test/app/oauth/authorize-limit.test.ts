/**
 * The authorization endpoint's budget per client address, against the authorization server on a
 * real socket with the rate limits' clock injected: past the budget a request is refused with the
 * page, `429` and `Retry-After`, before the session, the client or anything else is read; other
 * addresses go on (IPv6: per /64); the budget refills with time; POSTs count as GETs do.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { AUTHORIZE_REQUESTS_PER_MINUTE } from '../../../src/access/oauth/authorize-limit.js'
import { OauthError } from '../../../src/access/oauth/oauth-error.js'
import { AuthorizationServer } from '../../../src/app/oauth/authorization-server.js'
import { RateLimiter } from '../../../src/http/rate-limiter.js'
import { serveAuthorizationServer, type Served } from './served-authorization-server.js'

const BUDGET = AUTHORIZE_REQUESTS_PER_MINUTE
const QUERY = new URLSearchParams({
  client_id: 'dcr_unknown',
  redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
  response_type: 'code',
  code_challenge: 'c'.repeat(43),
  code_challenge_method: 'S256',
  resource: 'https://docs--acme.tunnels.example/mcp',
})

describe('authorization requests per address', () => {
  let served: Served
  let base: string
  let clock: number
  /** What the server read, in order: sessions and clients. */
  let reads: string[]

  beforeEach(async () => {
    clock = Date.parse('2026-11-25T10:00:00.000Z')
    reads = []
    const server = new AuthorizationServer({
      issuer: 'https://tunnels.example',
      https: false,
      services: {
        sessions: { find: () => (reads.push('session'), Promise.resolve(undefined)) },
      } as never,
      registry: {
        find: () => {
          reads.push('client')
          return Promise.reject(new OauthError('invalid_request', 'unknown client_id'))
        },
      } as never,
      grants: {} as never,
      tokens: {} as never,
      settings: {} as never,
      labelOf: () => Promise.resolve(null),
      tunnelByLabel: () => Promise.resolve(null),
      limits: { limiter: (_name, o) => new RateLimiter({ ...o, now: () => clock }) },
    })
    served = await serveAuthorizationServer(server)
    base = served.base
  })

  afterEach(async () => {
    await served.close()
  })

  /** Ask from client `address` (loopback is a trusted proxy by default), with a session cookie. */
  const ask = async (address: string, method: 'GET' | 'POST' = 'GET') => {
    const headers = { 'x-forwarded-for': address, cookie: 'burrow_session=made-up' }
    const res =
      method === 'GET'
        ? await fetch(`${base}/oauth/authorize?${QUERY.toString()}`, { headers })
        : await fetch(`${base}/oauth/authorize`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            body: QUERY,
          })
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      text: await res.text(),
    }
  }

  it('refuses an address past its budget before reading anything; others go on', async () => {
    for (let i = 0; i < BUDGET; i++) {
      const answer = await ask('203.0.113.7', i % 2 === 0 ? 'GET' : 'POST')
      assert.equal(answer.status, 400, `request ${i + 1}`)
      assert.match(answer.text, /unknown client_id/)
    }
    assert.equal(reads.filter((r) => r === 'client').length, BUDGET)
    const read = reads.length
    for (const method of ['GET', 'POST'] as const) {
      const refused = await ask('203.0.113.7', method)
      assert.equal(refused.status, 429, method)
      assert.equal(refused.retryAfter, '1')
      assert.match(refused.text, /Too many authorization requests from this address; retry in 1 s/)
    }
    assert.equal(reads.length, read, 'neither the session nor the client was read')
    assert.equal((await ask('203.0.113.8')).status, 400, 'another address goes on')
    // The budget refills: one request a second.
    clock += 1_000
    assert.equal((await ask('203.0.113.7')).status, 400)
    assert.equal((await ask('203.0.113.7')).status, 429)
  })

  it('keys IPv6 clients by their /64', async () => {
    for (let i = 0; i < BUDGET; i++) {
      assert.equal((await ask(`2001:db8:7:7::${(i + 1).toString(16)}`)).status, 400)
    }
    assert.equal((await ask('2001:db8:7:7:ffff::1')).status, 429, 'the same /64')
    assert.equal((await ask('2001:db8:7:8::1')).status, 400, 'the next /64')
  })
})
