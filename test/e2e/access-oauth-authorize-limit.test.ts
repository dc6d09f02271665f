/**
 * The authorization endpoint (`/oauth/authorize`) bounds the requests of each client address, as
 * the token endpoint bounds failures: a real burrowd, clients told apart by `X-Forwarded-For`
 * (loopback is a trusted proxy by default). Every request is read before anyone signs in (the
 * session, the client, the tunnel, its settings); a stranger looping on it loaded the database
 * without bound. Past the budget the answer is the page with `429` and `Retry-After`; other
 * addresses go on, and the tunnel's signed-in owner (its consent page, its answers) is not
 * counted.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { AUTHORIZE_REQUESTS_PER_MINUTE } from '../../packages/server/src/access/oauth/authorize-limit.js'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'
const BUDGET = AUTHORIZE_REQUESTS_PER_MINUTE

describe('authorization requests per address', { timeout: 120_000 }, () => {
  let service: Service
  let base: string
  let owner: WebUser
  let query: URLSearchParams

  const authorize = (from: string, init: { cookie?: string; form?: URLSearchParams } = {}) =>
    fetch(`${base}/oauth/authorize${init.form ? '' : `?${query.toString()}`}`, {
      method: init.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        'x-forwarded-for': from,
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(init.form ? { body: init.form } : {}),
    })

  before(async () => {
    service = await startService()
    base = `http://127.0.0.1:${service.port}`
    owner = await signUp(base, 'asker')
    const made = await owner.api<{ tunnel: { mcp_url: string } }>('POST', '/api/tunnels', {
      name: 'asked',
    })
    assert.equal(made.status, 201)
    const registered = (await (
      await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'asker', redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
    query = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
      code_challenge_method: 'S256',
      resource: made.json.tunnel.mcp_url,
    })
  })

  after(async () => {
    await service?.close()
  })

  it('refuses an address past its budget with 429 and Retry-After; others go on', async () => {
    const stranger = '198.51.100.7'
    const started = Date.now()
    const answers = await Promise.all(
      Array.from({ length: BUDGET + 20 }, () => authorize(stranger)),
    )
    const seconds = Math.ceil((Date.now() - started) / 1000)
    // Sent at once, as a loop's would be: the budget goes through (and what refilled meanwhile).
    const allowed = answers.filter((r) => r.status === 302).length
    assert.ok(allowed >= BUDGET && allowed <= BUDGET + seconds, `${allowed} went through`)
    const refused = answers.find((r) => r.status === 429)
    assert.ok(refused, 'some were refused')
    assert.equal(answers.length - allowed, answers.filter((r) => r.status === 429).length)
    const wait = Number(refused.headers.get('retry-after'))
    assert.ok(wait >= 1 && wait <= 60, `Retry-After: ${wait}`)
    assert.match(refused.headers.get('content-type') ?? '', /^text\/html/)
    assert.match(await refused.text(), /Too many authorization requests from this address/)
    // Another address is not held back.
    assert.equal((await authorize('198.51.100.8')).status, 302)
  })

  it('does not count the tunnel owner’s own requests: the consent page and the answers', async () => {
    const home = '198.51.100.9'
    for (let i = 0; i < BUDGET + 10; i++) {
      const page = await authorize(home, { cookie: owner.cookie })
      assert.equal(page.status, 200, `consent page ${i}: ${page.status}`)
      const form = new URLSearchParams({
        ...Object.fromEntries(query),
        _csrf: owner.csrf,
        decision: i % 2 === 0 ? 'approve' : 'deny',
      })
      const answered = await authorize(home, { cookie: owner.cookie, form })
      assert.equal(answered.status, 303, `answer ${i}: ${answered.status}`)
    }
    // A forged answer (no CSRF token) and a request signed out are counted as anyone's.
    const forged = await authorize(home, {
      cookie: owner.cookie,
      form: new URLSearchParams({ ...Object.fromEntries(query), decision: 'approve' }),
    })
    assert.equal(forged.status, 403)
    const statuses = await Promise.all(
      Array.from({ length: BUDGET + 10 }, () => authorize(home).then((r) => r.status)),
    )
    assert.deepEqual(new Set(statuses), new Set([302, 429]), statuses.join(' '))
  })
})
