/**
 * A hostile OAuth client with a grant, against a real burrowd: looping on the token endpoint with
 * its own refresh tokens. Every rotation remembers the replaced token for reuse detection, so
 * refreshes are bounded per grant; a refused refresh is the OAuth error JSON with 429 and
 * Retry-After, and leaves the token unspent and the grant connected.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const REDIRECT = 'http://127.0.0.1:9/callback'

describe('refreshes per grant', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let tunnelId: string
  let mcpUrl: string

  const token = (fields: Record<string, string>) =>
    fetch(`http://127.0.0.1:${service.port}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    })

  before(async () => {
    service = await startService()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'looper')
    const made = await owner.api<{ tunnel: { id: string; mcp_url: string } }>(
      'POST',
      '/api/tunnels',
      { name: 'looped' },
    )
    assert.equal(made.status, 201)
    tunnelId = made.json.tunnel.id
    mcpUrl = made.json.tunnel.mcp_url
  })

  after(async () => {
    await service?.close()
  })

  it('refuses a grant past 20 refreshes an hour, without spending the token; parallel ones count once', async () => {
    const registered = (await (
      await fetch(`http://127.0.0.1:${service.port}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'looper', redirect_uris: [REDIRECT] }),
      })
    ).json()) as { client_id: string }
    const verifier = randomBytes(32).toString('base64url')
    const approved = await owner.form('/oauth/authorize', {
      client_id: registered.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
      decision: 'approve',
    })
    const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code')
    assert.ok(code, `no code: ${approved.status}`)
    const redeemed = await token({
      grant_type: 'authorization_code',
      code,
      client_id: registered.client_id,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      resource: mcpUrl,
    })
    assert.equal(redeemed.status, 200)
    let refresh = ((await redeemed.json()) as { refresh_token: string }).refresh_token

    const refreshed = () =>
      token({
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: registered.client_id,
      })
    // An agent's parallel calls refresh at once with one token: one refresh, counted once.
    const parallel = await Promise.all(Array.from({ length: 25 }, () => refreshed()))
    const successors = new Set<string>()
    for (const res of parallel) {
      assert.equal(res.status, 200)
      successors.add(((await res.json()) as { refresh_token: string }).refresh_token)
    }
    assert.equal(successors.size, 1)
    refresh = [...successors][0]!
    for (let i = 1; i < 20; i++) {
      const res = await refreshed()
      const body = (await res.json()) as { refresh_token?: string; error?: string }
      assert.equal(res.status, 200, `refresh ${i + 1}: ${JSON.stringify(body)}`)
      assert.notEqual(body.refresh_token, refresh)
      refresh = body.refresh_token!
    }
    for (let again = 0; again < 2; again++) {
      const refused = await refreshed()
      assert.equal(refused.status, 429)
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/)
      const body = (await refused.json()) as { error: string; error_description: string }
      assert.equal(body.error, 'invalid_request')
      assert.match(body.error_description, /refreshed its tokens 20 times in the last hour/)
    }
    // The token the refused requests presented was not spent, nor taken as a reuse.
    const agents = await owner.api<{ agents: { client_id: string }[] }>(
      'GET',
      `/api/tunnels/${tunnelId}/agents`,
    )
    assert.deepEqual(
      agents.json.agents.map((a) => a.client_id),
      [registered.client_id],
    )
  })
})
