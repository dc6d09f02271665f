/**
 * burrowd's authorization server against clients that mean harm: a thief who refreshed with a
 * stolen refresh token before the client revoked it (RFC 7009 must end the grant, whichever
 * generation the client holds), and registrations whose redirect URI or name would make the
 * consent page read otherwise than it means. A real burrowd, a real `burrow up` and local MCP
 * server; the consent is given with the owner's dashboard session.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as oauth from 'oauth4webapi'
import { publicFetch } from '../helpers/public-fetch.js'
import { startOauthTunnel, type OauthTunnel } from '../helpers/oauth-tunnel.js'
import type { Service } from '../helpers/stack.js'
import { MAX_GRANTS_PER_TUNNEL } from '../../packages/server/src/store/oauth-grant-store.js'
import type { WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'

describe('the authorization server against hostile clients', () => {
  let service: Service
  let owner: WebUser
  let mcpUrl: string
  let tunnel: OauthTunnel | undefined

  before(async () => {
    tunnel = await startOauthTunnel('hostile')
    ;({ service, owner, mcpUrl } = tunnel)
  })

  after(async () => {
    await tunnel?.stop()
  })

  /** A client registered by DCR, and what it does at the token endpoint and the tunnel. */
  const registeredClient = async () => {
    const base = `http://127.0.0.1:${service.port}`
    const registered = (await (
      await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'revoking client', redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
    const clientId = registered.client_id
    const form = async (path: string, fields: Record<string, string>) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      })
      return { status: res.status, json: (await res.json()) as Record<string, string> }
    }
    const tools = (token: string) =>
      publicFetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      })
    /** The owner's Approve on the consent page, for a code bound to `verifier`. */
    const approve = async (verifier: string) => {
      const query = new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: mcpUrl,
      })
      const consent = await owner.page(`/oauth/authorize?${query.toString()}`)
      assert.equal(consent.status, 200)
      const fields = Object.fromEntries(
        [
          ...(await consent.text()).matchAll(
            /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
          ),
        ].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
      )
      return owner.form('/oauth/authorize', { ...fields, decision: 'approve' })
    }
    const grant = async () => {
      const verifier = oauth.generateRandomCodeVerifier()
      const approved = await approve(verifier)
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!
      const redeemed = await form('/oauth/token', {
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        code_verifier: verifier,
      })
      assert.equal(redeemed.status, 200)
      return redeemed.json
    }
    const refresh = (token: string) =>
      form('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: clientId,
      })

    return { base, clientId, form, tools, approve, grant, refresh }
  }

  it('revokes the grant when a client revokes with a refresh token already replaced (a thief refreshed first)', async () => {
    const { form, tools, grant, refresh } = await registeredClient()
    // A thief refreshed with a stolen token first; the client, signing out, revokes the token it
    // holds. Before, /oauth/revoke knew only the current refresh token: it answered 200, did
    // nothing, and the thief kept the grant.
    for (const within of [true, false]) {
      const first = await grant()
      const stolen = await refresh(first.refresh_token!)
      assert.equal(stolen.status, 200)
      if (!within) {
        const next = await refresh(stolen.json.refresh_token!)
        assert.equal(next.status, 200)
        stolen.json.access_token = next.json.access_token!
        stolen.json.refresh_token = next.json.refresh_token!
      }
      assert.equal((await tools(stolen.json.access_token!)).status, 200)
      const revoked = await form('/oauth/revoke', { token: first.refresh_token! })
      assert.equal(revoked.status, 200)
      assert.equal((await tools(stolen.json.access_token!)).status, 401, `within grace: ${within}`)
      assert.equal((await refresh(stolen.json.refresh_token!)).status, 400)
    }
    // The thief's refresh and the client's revocation at once, in either order: the grant ends.
    for (let i = 0; i < 3; i++) {
      const first = await grant()
      const [stolen, revoked] = await Promise.all([
        refresh(first.refresh_token!),
        form('/oauth/revoke', { token: first.refresh_token! }),
      ])
      assert.equal(revoked.status, 200)
      if (stolen.status === 200) {
        assert.equal((await tools(stolen.json.access_token!)).status, 401)
        assert.equal((await refresh(stolen.json.refresh_token!)).status, 400)
      }
    }
  })

  it('registers no redirect URI or client name that would make the consent page read otherwise than it means', async () => {
    const base = `http://127.0.0.1:${service.port}`
    const register = async (body: unknown) => {
      const res = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: res.status, json: (await res.json()) as Record<string, unknown> }
    }
    // The page shows the redirect URI as registered: user info put a trusted name before the
    // real host, and bidirectional controls or spaces could turn the rest around.
    for (const uri of [
      'https://claude.ai@evil.example/cb',
      'https://claude.ai:443@evil.example/api/mcp/auth_callback',
      'http://claude.ai@127.0.0.1:9/cb',
      'https://evil.example/\u202ecb',
      'https://evil.example/a b',
      'myapp:/\u2066cb',
      // A URL parser reads the backslash as "/": the address is evil.example's.
      'https://evil.example\\@claude.ai/cb',
      'view-source:https://evil.example/cb',
      'jar:https://evil.example/x.jar!/cb',
      'filesystem:https://evil.example/temporary/cb',
    ]) {
      const res = await register({ client_name: 'spoof', redirect_uris: [uri] })
      assert.equal(res.status, 400, uri)
      assert.equal(res.json.error, 'invalid_redirect_uri', uri)
    }
    // A name with bidirectional controls would reorder the sentence that names tunnel and account.
    const named = await register({
      client_name: 'Claude \u202eevil\u202c',
      redirect_uris: [REDIRECT],
    })
    assert.equal(named.status, 201)
    assert.doesNotMatch(String(named.json.client_name), /[\u202a-\u202e\u2066-\u2069]/)
    const query = new URLSearchParams({
      client_id: String(named.json.client_id),
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      resource: mcpUrl,
    })
    const consent = await owner.page(`/oauth/authorize?${query.toString()}`)
    assert.equal(consent.status, 200)
    assert.doesNotMatch(await consent.text(), /[\u202a-\u202e\u2066-\u2069]/)

    // A metadata document's URL is shown too (it is the client's identity): one beyond printable
    // ASCII is refused before it is fetched.
    for (const clientId of [
      'https://client.example/\u202enoslj.json',
      'https://client.example/a b.json',
      'https://client.example/\u2066doc.json',
    ]) {
      const res = await owner.page(
        `/oauth/authorize?${new URLSearchParams({ ...Object.fromEntries(query), client_id: clientId }).toString()}`,
      )
      assert.equal(res.status, 400, clientId)
      assert.match(await res.text(), /printable ASCII/, clientId)
    }
  })

  it('bounds junk token requests per client address; a client elsewhere refreshes', async () => {
    const { base, grant, refresh, tools } = await registeredClient()
    const first = await grant()
    const junk = async (address: string, path = '/oauth/token') => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': address,
        },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: `brt_${oauth.generateRandomCodeVerifier()}`,
          token: `brt_${oauth.generateRandomCodeVerifier()}`,
        }),
      })
      const json = (await res.json()) as Record<string, string>
      return { status: res.status, retryAfter: res.headers.get('retry-after'), json }
    }
    // Made-up refresh tokens each cost lookups and a transaction: 60 failures an address (the
    // budget refills at one a second), then refused before any lookup.
    const started = Date.now()
    let failures = 0
    let answer = await junk('203.0.113.7')
    for (; answer.status === 400 && failures < 300; failures++) {
      assert.equal(answer.json.error, 'invalid_grant')
      answer = await junk('203.0.113.7')
    }
    const refilled = Math.ceil((Date.now() - started) / 1000) + 1
    assert.ok(failures >= 60 && failures <= 60 + refilled, `${failures} failures`)
    assert.equal(answer.status, 429)
    assert.match(answer.retryAfter ?? '', /^[1-9]\d*$/)
    assert.equal(answer.json.error, 'invalid_request')
    assert.match(answer.json.error_description!, /too many failed token requests/)
    assert.equal((await junk('203.0.113.7', '/oauth/revoke')).status, 429)
    assert.equal((await junk('198.51.100.9')).json.error, 'invalid_grant')
    const refreshed = await refresh(first.refresh_token!)
    assert.equal(refreshed.status, 200, 'a client at another address refreshes')
    assert.equal((await tools(refreshed.json.access_token!)).status, 200)
  })

  it('refuses a malformed token request without touching the grant, and bounds the approvals of a tunnel', async () => {
    const { base, clientId, tools, approve, grant, refresh } = await registeredClient()
    const first = await grant()
    const token = async (body: string) => {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
      return { status: res.status, json: (await res.json()) as Record<string, string> }
    }
    const refreshing = `grant_type=refresh_token&refresh_token=${first.refresh_token!}`
    // An empty client_id was taken for another client's, which ends the grant.
    const empty = await token(`${refreshing}&client_id=`)
    assert.equal(empty.status, 400)
    assert.equal(empty.json.error, 'invalid_request')
    assert.match(empty.json.error_description!, /client_id is empty/)
    const repeated = await token(`${refreshing}&client_id=${clientId}&client_id=${clientId}`)
    assert.equal(repeated.status, 400)
    assert.match(repeated.json.error_description!, /client_id is repeated/)
    // A body of some 13,000 names (each was looked up among all the others).
    const names = Array.from({ length: 13_000 }, (_, i) => `${i.toString(36)}=`).join('&')
    const many = await token(names)
    assert.equal(many.status, 400)
    assert.equal(many.json.error, 'unsupported_grant_type')
    const refreshed = await refresh(first.refresh_token!)
    assert.equal(refreshed.status, 200, 'the grant lives')
    assert.equal((await tools(refreshed.json.access_token!)).status, 200)

    // Each Approve writes a grant and a code: a tunnel holds a bounded number of them.
    const firstRefused = async () => {
      for (let i = 0; i <= MAX_GRANTS_PER_TUNNEL; i++) {
        const approved = await approve(oauth.generateRandomCodeVerifier())
        if (approved.status !== 303) return approved
      }
      return undefined
    }
    const refused = await firstRefused()
    assert.ok(refused, `${MAX_GRANTS_PER_TUNNEL + 1} approvals all went through`)
    assert.equal(refused.status, 409)
    assert.match(await refused.text(), /approved clients, the most it may have/)
    assert.equal(
      (await tools(refreshed.json.access_token!)).status,
      200,
      'the clients approved are not affected',
    )
  })
})
