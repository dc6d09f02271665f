import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import { cookieNames, identify, type AuthLookups } from '../../src/app/session-auth.js'
import { HttpError } from '../../src/http/http-error.js'

const lookups: AuthLookups = {
  authenticateToken: (token) =>
    Promise.resolve(token === 'btk_good' ? { accountId: 'acc_1', tokenId: 'tok_1' } : undefined),
  findSession: () => Promise.resolve(undefined),
}

function request(authorization: string): IncomingMessage {
  return { headers: { authorization } } as unknown as IncomingMessage
}

async function refusal(authorization: string): Promise<string> {
  try {
    await identify(request(authorization), lookups, 'burrow_session')
  } catch (err) {
    assert.ok(err instanceof HttpError)
    assert.equal(err.status, 401)
    return err.message
  }
  assert.fail(`${authorization.slice(0, 40)} was accepted`)
}

describe('identify: what a refused bearer credential is told', () => {
  it('an API token is accepted', async () => {
    const caller = await identify(request('Bearer btk_good'), lookups, 'burrow_session')
    assert.deepEqual(caller, { via: 'token', accountId: 'acc_1', tokenId: 'tok_1' })
  })

  it('a tunnel key sent to the API is named as one', async () => {
    // It said "the API token is unknown or was revoked", which a new user reads as a bad key.
    const message = await refusal('Bearer mtk_S9WDn2EdCSKjmQ8ooZg7SUqx7DxUx_24ErlI6x5GjHU')
    assert.match(message, /^that is a tunnel key \(mtk_…\), which "burrow up" uses; /)
    assert.match(message, /API token \(btk_…\) in the dashboard under API tokens$/)
  })

  it('an agent token sent to the API is named as one', async () => {
    assert.match(await refusal('Bearer atk_abc'), /^that is an agent token \(atk_…\)/)
  })

  it('a header without the Bearer scheme says how to write it', async () => {
    assert.match(await refusal('btk_good'), /^send the API token as "Authorization: Bearer btk_…"/)
    assert.match(await refusal('Basic dXNlcjpwYXNz'), /Authorization: Bearer btk_…/)
  })

  it('an unknown API token is still unknown or revoked', async () => {
    assert.match(await refusal('Bearer btk_nope'), /^the API token is unknown or was revoked; /)
  })

  it('hostile: huge, empty and repeated credentials get one short message each', async () => {
    const huge = await refusal(`Bearer mtk_${'x'.repeat(100_000)}`)
    assert.ok(huge.length < 300, `${huge.length} characters`)
    assert.ok(!huge.includes('xxxx'), 'the credential is echoed back')
    assert.match(await refusal(''), /Authorization: Bearer btk_…/)
    assert.match(await refusal('Bearer '), /Authorization: Bearer btk_…/)
    const many = await Promise.all(Array.from({ length: 50 }, () => refusal('Bearer mtk_x')))
    assert.equal(new Set(many).size, 1)
  })
})

describe('the session cookie', () => {
  const sessions: AuthLookups = {
    authenticateToken: () => Promise.resolve(undefined),
    findSession: (token) =>
      Promise.resolve(
        token === 'theirs' || token === 'ours' ? { accountId: token, csrfToken: 'c' } : undefined,
      ),
  }
  const withCookie = (cookie: string) => ({ headers: { cookie } }) as unknown as IncomingMessage

  it('is named with the __Host- prefix over https, plainly over http', () => {
    assert.deepEqual(cookieNames(true), {
      session: '__Host-burrow_session',
      form: '__Host-burrow_form',
      device: '__Host-burrow_device',
    })
    assert.deepEqual(cookieNames(false), {
      session: 'burrow_session',
      form: 'burrow_form',
      device: 'burrow_device',
    })
  })

  it('is read only by its name: over https a plain burrow_session (planted by another host) is not', async () => {
    const name = cookieNames(true).session
    const planted = withCookie(`burrow_session=theirs; ${name}=ours`)
    assert.equal((await identify(planted, sessions, name))?.accountId, 'ours')
    assert.equal(await identify(withCookie('burrow_session=theirs'), sessions, name), null)
  })
})
