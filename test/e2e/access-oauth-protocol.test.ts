/**
 * burrowd's authorization server checked with `oauth4webapi`, a strict, spec-following OAuth 2.1
 * client library, against a real burrowd: protected-resource discovery (RFC 9728) from the
 * tunnel, authorization-server metadata (RFC 8414), dynamic registration (RFC 7591), the
 * authorization code with PKCE S256 and the `iss` of RFC 9207, a token bound to the tunnel
 * (RFC 8707), refresh with rotation, and revocation (RFC 7009). The library rejects any response
 * that breaks the specifications; the consent is given with the owner's dashboard session.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import * as oauth from 'oauth4webapi'
import { publicFetch } from '../helpers/public-fetch.js'
import { startOauthTunnel, type OauthTunnel } from '../helpers/oauth-tunnel.js'
import type { Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'
/** Plain http on loopback, and tunnel hosts reached through the tests' resolver. */
const options = {
  [oauth.allowInsecureRequests]: true,
  [oauth.customFetch]: ((url: string, init?: RequestInit) =>
    publicFetch(url, init)) as typeof fetch,
}

describe('the authorization server, as a strict OAuth client library sees it', () => {
  let service: Service
  let owner: WebUser
  let mcpUrl: string
  let tunnel: OauthTunnel | undefined

  before(async () => {
    tunnel = await startOauthTunnel('strict')
    ;({ service, owner, mcpUrl } = tunnel)
  })

  after(async () => {
    await tunnel?.stop()
  })

  it('discovers, registers, authorizes with PKCE, refreshes and revokes by the RFCs', async () => {
    const tools = (token?: string) =>
      publicFetch(mcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      })

    // RFC 9728: the tunnel names its authorization server.
    const resourceUrl = new URL(mcpUrl)
    const prm = await oauth.processResourceDiscoveryResponse(
      resourceUrl,
      await oauth.resourceDiscoveryRequest(resourceUrl, options),
    )
    assert.equal(prm.resource, mcpUrl)
    const issuer = new URL(prm.authorization_servers![0]!)

    // RFC 8414, RFC 7591.
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
    )
    assert.deepEqual(as.code_challenge_methods_supported, ['S256'])
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'strict client',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
        },
        options,
      ),
    )
    const oauthClient: oauth.Client = { client_id: registered.client_id }
    const auth = oauth.None()

    // The authorization request, consented to with the owner's session.
    const authorizeCode = async () => {
      const verifier = oauth.generateRandomCodeVerifier()
      const state = oauth.generateRandomState()
      const authorize = new URL(as.authorization_endpoint!)
      for (const [k, v] of Object.entries({
        client_id: oauthClient.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        resource: mcpUrl,
      })) {
        authorize.searchParams.set(k, v)
      }
      const consentPath = authorize.pathname + authorize.search
      const consent = await owner.page(consentPath)
      assert.equal(consent.status, 200)
      const html = await consent.text()
      const fields = Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
          m[1]!,
          m[2]!.replace(/&amp;/g, '&'),
        ]),
      )
      const approved = await owner.form('/oauth/authorize', { ...fields, decision: 'approve' })
      assert.ok([302, 303].includes(approved.status), `consent answered ${approved.status}`)
      const callback = new URL(approved.headers.get('location')!)
      assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT)
      // RFC 9207: the response names its issuer; the library checks it and the state.
      return { params: oauth.validateAuthResponse(as, oauthClient, callback, state), verifier }
    }
    const redeem = (code: { params: URLSearchParams; verifier: string }) =>
      oauth.authorizationCodeGrantRequest(
        as,
        oauthClient,
        auth,
        code.params,
        REDIRECT,
        code.verifier,
        { ...options, additionalParameters: { resource: mcpUrl } },
      )
    const grant = await oauth.processAuthorizationCodeResponse(
      as,
      oauthClient,
      await redeem(await authorizeCode()),
    )
    assert.equal(grant.token_type, 'bearer')
    assert.ok(grant.refresh_token)
    assert.equal((await tools()).status, 401)
    assert.equal((await tools(grant.access_token)).status, 200)

    // Refresh with rotation.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      oauthClient,
      await oauth.refreshTokenGrantRequest(as, oauthClient, auth, grant.refresh_token, {
        ...options,
        additionalParameters: { resource: mcpUrl },
      }),
    )
    assert.notEqual(refreshed.refresh_token, grant.refresh_token)
    assert.equal((await tools(refreshed.access_token)).status, 200)

    // RFC 8707: a refresh for another resource is refused, and leaves the token unspent.
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          oauthClient,
          await oauth.refreshTokenGrantRequest(as, oauthClient, auth, refreshed.refresh_token!, {
            ...options,
            additionalParameters: { resource: 'https://example.com/mcp' },
          }),
        ),
      (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_target',
    )
    const again = await oauth.processRefreshTokenResponse(
      as,
      oauthClient,
      await oauth.refreshTokenGrantRequest(as, oauthClient, auth, refreshed.refresh_token!, {
        ...options,
        additionalParameters: { resource: mcpUrl },
      }),
    )
    assert.equal((await tools(again.access_token)).status, 200)

    // A client's parallel calls refresh at once with the same token (the MCP SDKs do, when its
    // access token ends): each gets the same new refresh token and a working access token, and
    // the grant stays. Before, all but one were taken for a replay and the grant was revoked.
    const parallel = await Promise.all(
      [1, 2, 3].map(async () =>
        oauth.processRefreshTokenResponse(
          as,
          oauthClient,
          await oauth.refreshTokenGrantRequest(as, oauthClient, auth, again.refresh_token!, {
            ...options,
            additionalParameters: { resource: mcpUrl },
          }),
        ),
      ),
    )
    assert.equal(new Set(parallel.map((p) => p.refresh_token)).size, 1)
    assert.notEqual(parallel[0]!.refresh_token, again.refresh_token)
    for (const p of parallel) assert.equal((await tools(p.access_token)).status, 200)

    // RFC 7009: revoking the refresh token ends the grant and its access tokens.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, oauthClient, auth, parallel[0]!.refresh_token!, options),
    )
    for (const t of [again, ...parallel]) assert.equal((await tools(t.access_token)).status, 401)

    // RFC 6749 §4.1.2: a code presented again is refused, and what it bought stops working.
    const code = await authorizeCode()
    const first = await oauth.processAuthorizationCodeResponse(as, oauthClient, await redeem(code))
    assert.equal((await tools(first.access_token)).status, 200)
    const replay = await redeem(code)
    assert.equal(replay.status, 400)
    assert.equal(((await replay.json()) as { error: string }).error, 'invalid_grant')
    assert.equal((await tools(first.access_token)).status, 401)
    await assert.rejects(
      async () =>
        oauth.processRefreshTokenResponse(
          as,
          oauthClient,
          await oauth.refreshTokenGrantRequest(as, oauthClient, auth, first.refresh_token!, {
            ...options,
            additionalParameters: { resource: mcpUrl },
          }),
        ),
      (err: unknown) => err instanceof oauth.ResponseBodyError && err.error === 'invalid_grant',
    )
  })

  it('consents only with the owner’s session and form token, for an oauth tunnel, and honours Deny', async () => {
    const registered = (await (
      await fetch(`http://127.0.0.1:${service.port}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'consent checks', redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
    const query = (resource: string) =>
      new URLSearchParams({
        client_id: registered.client_id,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 'st',
        resource,
      })
    const path = `/oauth/authorize?${query(mcpUrl).toString()}`
    const fields = Object.fromEntries(query(mcpUrl))

    // Without the session's form token, or with another's, nothing is approved.
    for (const csrf of ['', 'forged-token']) {
      const forged = await owner.form('/oauth/authorize', { ...fields, decision: 'approve' }, csrf)
      assert.equal(forged.status, 403, `csrf ${JSON.stringify(csrf)}`)
      assert.equal(forged.headers.get('location'), null)
    }
    // A page of another site cannot post it either.
    const foreign = await fetch(`http://127.0.0.1:${service.port}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: owner.cookie,
        origin: 'https://evil.example',
      },
      body: new URLSearchParams({ ...fields, _csrf: owner.csrf, decision: 'approve' }),
    })
    assert.equal(foreign.status, 403)

    // Deny sends the client back with access_denied, and no code.
    const denied = await owner.form('/oauth/authorize', { ...fields, decision: 'deny' })
    assert.ok([302, 303].includes(denied.status))
    const back = new URL(denied.headers.get('location')!)
    assert.equal(back.searchParams.get('error'), 'access_denied')
    assert.equal(back.searchParams.get('state'), 'st')
    assert.equal(back.searchParams.get('code'), null)

    // Another account cannot approve agents for this tunnel.
    const stranger = await signUp(`http://127.0.0.1:${service.port}`, 'stranger')
    const theirs = await stranger.page(path)
    assert.equal(theirs.status, 403)
    assert.match(await theirs.text(), /not one of stranger@example\.com(&#39;|')s tunnels/)
    const posted = await stranger.form('/oauth/authorize', { ...fields, decision: 'approve' })
    assert.equal(posted.status, 403)

    // A tunnel in token mode does not let agents sign in.
    const list = await owner.api<{ tunnels: { id: string }[] }>('GET', '/api/tunnels')
    const id = list.json.tunnels[0]!.id
    assert.equal(
      (await owner.api('PUT', `/api/tunnels/${id}/access`, { mode: 'token' })).status,
      200,
    )
    try {
      const tokenMode = await owner.page(path)
      assert.equal(tokenMode.status, 403)
      assert.match(await tokenMode.text(), /does not let agents sign in/)
    } finally {
      await owner.api('PUT', `/api/tunnels/${id}/access`, { mode: 'oauth' })
    }
  })
})
