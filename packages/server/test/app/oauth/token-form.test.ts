import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import { OauthError } from '../../../src/access/oauth/oauth-error.js'
import { readTokenForm } from '../../../src/app/oauth/token-form.js'
import {
  isRefreshTokenShape,
  newRefreshToken,
  refreshExpiry,
} from '../../../src/app/oauth/refresh-token.js'
import {
  isAuthorizationCodeShape,
  newAuthorizationCode,
} from '../../../src/app/oauth/authorization-code.js'
import { AccessTokens } from '../../../src/access/oauth/access-tokens.js'

/** A token request whose body is `body`, as node would hand it over. */
function request(body: string): IncomingMessage {
  const req = Readable.from([Buffer.from(body)]) as unknown as IncomingMessage
  req.headers = { 'content-type': 'application/x-www-form-urlencoded' }
  return req
}

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof OauthError && err.code === 'invalid_request' && pattern.test(err.message)

describe('readTokenForm', () => {
  it('reads a form with each parameter once', async () => {
    const form = await readTokenForm(
      request('grant_type=refresh_token&client_id=c&refresh_token=r'),
    )
    assert.equal(form.get('client_id'), 'c')
  })

  it('refuses a repeated parameter and an empty client_id', async () => {
    await assert.rejects(readTokenForm(request('a=1&b=2&a=3')), refused(/^a is repeated$/))
    await assert.rejects(
      readTokenForm(request('grant_type=refresh_token&client_id=')),
      refused(/client_id is empty/),
    )
  })

  it('reads some 13,000 distinct names in one pass', async () => {
    const names = Array.from({ length: 13_000 }, (_, i) => `${i.toString(36)}=`).join('&')
    assert.equal([...(await readTokenForm(request(names))).keys()].length, 13_000)
    await assert.rejects(readTokenForm(request(`${names}&0=`)), refused(/^0 is repeated$/))
  })
})

describe('refresh tokens', () => {
  it('are random, marked as Burrow’s, and live 30 days', () => {
    const [a, b] = [newRefreshToken(), newRefreshToken()]
    assert.match(a, /^brt_[A-Za-z0-9_-]{43}$/)
    assert.notEqual(a, b)
    const days = (refreshExpiry().getTime() - Date.now()) / 86_400_000
    assert.ok(days > 29.99 && days <= 30, String(days))
  })
})

describe('the shapes looked up', () => {
  it('are those of every refresh token and code given out, successors included', () => {
    const tokens = new AccessTokens({ secret: 's'.repeat(43), issuer: 'x', grants: {} as never })
    for (let i = 0; i < 50; i++) {
      const refresh = newRefreshToken()
      assert.ok(isRefreshTokenShape(refresh), refresh)
      assert.ok(isRefreshTokenShape(tokens.refreshSuccessor(refresh)))
      assert.ok(isAuthorizationCodeShape(newAuthorizationCode()))
    }
    const refresh = newRefreshToken()
    for (const junk of ['', 'brt_', refresh.slice(0, -1), `${refresh}a`, `brt_${'.'.repeat(43)}`]) {
      assert.equal(isRefreshTokenShape(junk), false, junk)
    }
    for (const junk of ['', refresh, refresh.slice(4, -1), `${'a'.repeat(42)}=`]) {
      assert.equal(isAuthorizationCodeShape(junk), false, junk)
    }
  })
})
