/**
 * A 2026-07-28 agent's `subscriptions/listen` stream is a POST that stays open as long as the
 * 2025 GET stream did, so what changes without news to the node (a grant revoked where this node
 * did not hear of it, an access token's hour ending) must end it as it ends a GET stream: real
 * burrowd and `burrow up` in front of the v2 SDK server, an OAuth agent holding both streams, its
 * grant deleted where no node is told. The GET stream's end shows that the edge checked its open
 * streams again; the listen stream must have ended with it.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { SseReader } from '../../packages/cli/test/helpers/raw-mcp.js'
import type { Child } from '../helpers/child.js'
import { MODERN } from '../helpers/modern-request.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { initializeMessage } from '../helpers/quota-stack.js'
import { ROOT, startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const V2_SERVER = `${ROOT}test/fixtures/v2-sdk-server.mjs`
const REDIRECT = 'http://127.0.0.1:9/callback'
const ACCEPT = 'application/json, text/event-stream'

/** An OAuth access token for `resource`: registration, the owner's consent, the code redeemed. */
async function oauthToken(owner: WebUser, resource: string): Promise<string> {
  const registered = await fetch(`${owner.base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'listening agent', redirect_uris: [REDIRECT] }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const verifier = randomBytes(32).toString('base64url')
  const fields = {
    client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    resource,
  }
  const approved = await owner.form('/oauth/authorize', { ...fields, decision: 'approve' })
  const code = new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? ''
  const token = await fetch(`${owner.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id,
      code_verifier: verifier,
    }),
  })
  const { access_token } = (await token.json()) as { access_token: string }
  assert.ok(access_token, 'an access token')
  return access_token
}

/** An open stream: when it ended, and how to close it. */
interface Stream {
  readonly ended: Promise<void>
  readonly isEnded: () => boolean
  close(): void
}

/** Read `res`'s body to its end (the edge ending it, or `abort`). */
function held(res: Response, abort: AbortController): Stream {
  let ended = false
  const done = (async () => {
    try {
      for await (const chunk of res.body ?? []) void chunk
    } catch {
      // ended by the edge, or closed by the test
    }
    ended = true
  })()
  return { ended: done, isEnded: () => ended, close: () => abort.abort() }
}

/** A 2026-07-28 `subscriptions/listen` stream, open once its acknowledgement came. */
async function listen(url: string, token: string): Promise<Stream> {
  const abort = new AbortController()
  const res = await publicFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'listen',
      method: 'subscriptions/listen',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
        notifications: { toolsListChanged: true },
      },
    }),
    signal: abort.signal,
  })
  assert.equal(res.status, 200)
  const [forRead, forHold] = res.body!.tee()
  await new SseReader(new Response(forRead)).next() // the acknowledgement: the stream is open
  return held(new Response(forHold), abort)
}

/** A 2025 session's GET stream. */
async function getStream(url: string, token: string): Promise<Stream> {
  const headers = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': '2025-06-18',
    authorization: `Bearer ${token}`,
  }
  const init = await publicFetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(initializeMessage(1)),
  })
  assert.equal(init.status, 200, await init.text())
  const session = init.headers.get('mcp-session-id') ?? ''
  const abort = new AbortController()
  const res = await publicFetch(url, {
    method: 'GET',
    headers: { ...headers, 'mcp-session-id': session },
    signal: abort.signal,
  })
  assert.equal(res.status, 200)
  return held(res, abort)
}

describe('listen streams and access that changes without news', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let client: Child | undefined
  let url: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'listener')
    const made = await owner.api<{ tunnel: { mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'listen' },
    )
    assert.equal(made.status, 201)
    url = made.json.tunnel.mcp_url
    client = await startClient(service, made.json.key, ['--stdio', `node "${V2_SERVER}"`])
  })

  after(async () => {
    await client?.stop()
    await service?.close()
  })

  it('ends a listen stream whose grant is gone when the edge checks its open streams again', async () => {
    const token = await oauthToken(owner, url)
    const listening = await listen(url, token)
    const witness = await getStream(url, token)
    try {
      assert.equal(listening.isEnded(), false)
      assert.equal(witness.isEnded(), false)
      // The grant goes where this node hears nothing of it (an event lost, another node's
      // authorization server): only the check of open streams can find out.
      const db = new Database(join(service.dataDir, 'burrow.db'))
      try {
        db.pragma('foreign_keys = ON')
        const { gid } = JSON.parse(
          Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'),
        ) as { gid: string }
        assert.equal(db.prepare('delete from oauth_grants where id = ?').run(gid).changes, 1)
      } finally {
        db.close()
      }
      await witness.ended
      // Checked first (it was open first): ended in the same round, or it never will be.
      const verdict = await Promise.race([
        listening.ended.then(() => 'ended'),
        new Promise((resolve) => setTimeout(resolve, 5_000, 'still open')),
      ])
      assert.equal(verdict, 'ended', 'the listen stream outlived its grant')
    } finally {
      listening.close()
      witness.close()
    }
  })
})
