/**
 * A session one agent opened stays counted against the tunnel's sessions when another agent
 * names it: on `token` (and `oauth`) tunnels `burrow up` answers that agent `404 Session not
 * found`, which the edge used to take as the session's end. Agent B could so free agent A's place
 * while A went on using it, and hold more sessions in use than the plan allows. `burrow up` now
 * tells the edge the session goes on (a header the agent never sees), both for its own sessions
 * (stdio servers) and for a local HTTP server's.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { startChild } from '../helpers/child.js'
import { freePort } from '../helpers/free-port.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, EVERYTHING, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const VERSION = '2025-11-25'

describe('sessions another agent names', { timeout: 120_000 }, () => {
  let service: Service
  let ownerToken: string
  const children: Child[] = []

  /** Ask the JSON API as the owner (account acme, on Free: 3 sessions in use per tunnel). */
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ownerToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    assert.ok(res.status < 300, `${method} ${path}: ${res.status}`)
    return (await res.json()) as T
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    ownerToken = (JSON.parse(made.stdout) as { token: string }).token
  })

  after(async () => {
    for (const child of children) await child.stop()
    await service.proc.stop()
  })

  /** A `token` tunnel served by `burrow up <upArgs>`, and two agents' tokens for it. */
  const tunnelWith = async (name: string, upArgs: string[]) => {
    const t = await api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name, access: 'token' },
    )
    children.push(await startClient(service, t.key, upArgs))
    const token = async (agent: string) =>
      (
        await api<{ secret: string }>('POST', `/api/tunnels/${t.tunnel.id}/agent-tokens`, {
          name: agent,
        })
      ).secret
    return { url: t.tunnel.mcp_url, a: await token('agent a'), b: await token('agent b') }
  }

  /** Session places in use: agent A's one, agent B's two, then B names A's session. */
  const placeKept = async (url: string, a: string, b: string) => {
    const headers = (auth: string, session?: string) => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${auth}`,
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': VERSION } : {}),
    })
    const initialize = async (auth: string) => {
      const params = {
        protocolVersion: VERSION,
        capabilities: {},
        clientInfo: { name: 'e2e', version: '1' },
      }
      const res = await publicFetch(url, {
        method: 'POST',
        headers: headers(auth),
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params }),
      })
      return {
        status: res.status,
        session: res.headers.get('mcp-session-id'),
        text: await res.text(),
      }
    }
    const streams: AbortController[] = []
    /** A session of `auth`'s, held in use by its open GET stream. */
    const inUse = async (auth: string) => {
      const opened = await initialize(auth)
      assert.equal(opened.status, 200, opened.text)
      const session = opened.session!
      const initialized = await publicFetch(url, {
        method: 'POST',
        headers: headers(auth, session),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
      await initialized.arrayBuffer()
      const abort = new AbortController()
      streams.push(abort)
      const stream = await publicFetch(url, {
        method: 'GET',
        headers: { ...headers(auth, session), accept: 'text/event-stream' },
        signal: abort.signal,
      })
      assert.equal(stream.status, 200)
      stream.body?.pipeTo(new WritableStream()).catch(() => {})
      return session
    }
    try {
      const ofA = await inUse(a)
      await inUse(b)
      await inUse(b)
      // Agent B names A's session, twice: as unknown to B as any other id.
      for (const method of ['POST', 'DELETE']) {
        const res = await publicFetch(url, {
          method,
          headers: headers(b, ofA),
          ...(method === 'POST'
            ? { body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }) }
            : {}),
        })
        assert.equal(res.status, 404)
        assert.equal(res.headers.get('burrow-foreign-session'), null, 'the agent is not told')
        await res.arrayBuffer()
      }
      // Three sessions are still in use: the plan's three places are taken.
      const fourth = await initialize(b)
      assert.equal(fourth.status, 429, `a fourth session was let in: ${fourth.text}`)
      assert.match(fourth.text, /session limit/)
    } finally {
      for (const abort of streams) abort.abort()
    }
  }

  it("keeps counting burrow up's own session (a stdio server) that another agent named", async () => {
    const t = await tunnelWith('stdio', ['--stdio', `${process.execPath} ${EVERYTHING} stdio`])
    await placeKept(t.url, t.a, t.b)
  })

  it("keeps counting a local HTTP server's session that another agent named", async () => {
    const port = await freePort()
    const server = startChild(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
    })
    children.push(server)
    await server.waitFor(/listening|port/i)
    const t = await tunnelWith('http', ['--upstream', `http://127.0.0.1:${port}/mcp`])
    await placeKept(t.url, t.a, t.b)
  })
})
