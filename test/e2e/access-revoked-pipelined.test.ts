/**
 * A request whose access is taken away while it waits behind another answer on the same
 * connection (HTTP/1.1 pipelining) is never forwarded. Such a request now runs only once the
 * answers before it are done (`http/in-turn.ts`), so it meets the gate as it then is; before, it
 * ran at once, its refusal waited, and it went on to the local server once its body arrived.
 * The connection's other answers are delivered (one still uploading its body:
 * `access-revoked-uploading.test.ts`). Real
 * burrowd and `burrow up` in front of a local MCP server, the pipelined requests written on a raw
 * socket.
 */
import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import {
  initializeMessage,
  startCountingServer,
  type CountingServer,
} from '../helpers/quota-stack.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}

/** An initialized MCP session of the agent holding `auth`. */
async function session(url: string, auth: Record<string, string>): Promise<string> {
  const init = await publicFetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...auth },
    body: JSON.stringify(initializeMessage(1)),
  })
  assert.equal(init.status, 200, await init.text())
  return init.headers.get('mcp-session-id') ?? ''
}

/** A GET stream of `auth`'s agent, and when the edge ended it. */
async function stream(url: string, auth: Record<string, string>, id: string) {
  const abort = new AbortController()
  const res = await publicFetch(url, {
    method: 'GET',
    headers: { ...HEADERS, ...auth, 'mcp-session-id': id },
    signal: abort.signal,
  })
  assert.equal(res.status, 200)
  const ended = (async () => {
    try {
      for await (const chunk of res.body ?? []) void chunk
    } catch {
      // ended by the edge, or closed by the test
    }
  })()
  return { ended, close: () => abort.abort() }
}

/** What a local server answers `initialize` with. */
function initializeResult(): unknown {
  return {
    protocolVersion: '2025-06-18',
    capabilities: { tools: {} },
    serverInfo: { name: 'held', version: '1.0.0' },
  }
}

describe('a request revoked while its body is read', { timeout: 120_000 }, () => {
  let service: Service
  let counting: CountingServer
  let owner: WebUser
  const clients: Child[] = []
  const sockets: Socket[] = []
  const servers: Server[] = []

  /** A new agent token of tunnel `tunnelId`. */
  const token = async (tunnelId: string, name: string) => {
    const t = await owner.api<{ agent_token: { id: string }; secret: string }>(
      'POST',
      `/api/tunnels/${tunnelId}/agent-tokens`,
      { name },
    )
    assert.equal(t.status, 201)
    return { id: t.json.agent_token.id, secret: t.json.secret }
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    counting = await startCountingServer()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'pipeliner')
  })

  after(async () => {
    for (const s of sockets) s.destroy()
    for (const s of servers) s.closeAllConnections()
    for (const s of servers) s.close()
    for (const c of clients) await c.stop()
    await counting?.child.stop()
    await service?.close()
  })

  it('is not forwarded when its refusal waits behind another answer', async () => {
    const made = await owner.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'piped', access: 'token' },
    )
    assert.equal(made.status, 201, JSON.stringify(made.json))
    clients.push(await startClient(service, made.json.key, ['--upstream', counting.url]))
    const url = made.json.tunnel.mcp_url
    const tunnelId = made.json.tunnel.id
    const token = async (name: string) => {
      const t = await owner.api<{ agent_token: { id: string }; secret: string }>(
        'POST',
        `/api/tunnels/${tunnelId}/agent-tokens`,
        { name },
      )
      assert.equal(t.status, 201)
      return { id: t.json.agent_token.id, secret: t.json.secret }
    }
    const kept = await token('kept')
    const gone = await token('gone')
    const keptSession = await session(url, { authorization: `Bearer ${kept.secret}` })
    const goneSession = await session(url, { authorization: `Bearer ${gone.secret}` })

    // One connection: the kept agent's GET stream first, whose answer never ends, then the
    // revoked agent's call, pipelined behind it, its body not all sent.
    const { host, pathname } = new URL(url)
    const socket = connectTcp(service.port, '127.0.0.1')
    sockets.push(socket)
    socket.on('error', () => {})
    socket.resume()
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'revoked' } },
    })
    const cut = body.length - 10
    socket.write(
      `GET ${pathname} HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\n` +
        `mcp-protocol-version: 2025-06-18\r\nauthorization: Bearer ${kept.secret}\r\n` +
        `mcp-session-id: ${keptSession}\r\n\r\n` +
        `POST ${pathname} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n` +
        `authorization: Bearer ${gone.secret}\r\nmcp-session-id: ${goneSession}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, cut)}`,
    )
    // The gone agent's own GET stream, admitted after the call: the edge checks a tunnel's open
    // requests in the order they were admitted, so once this one ends the call was ended too.
    const probe = await stream(url, { authorization: `Bearer ${gone.secret}` }, goneSession)
    const before = (await counting.counts()).tool_calls
    const deleted = await owner.api('DELETE', `/api/tunnels/${tunnelId}/agent-tokens/${gone.id}`)
    assert.equal(deleted.status, 204)
    await probe.ended
    socket.write(body.slice(cut))
    // A call of the kept agent, after: once it is answered, the revoked one would have arrived.
    const after = await publicFetch(url, {
      method: 'POST',
      headers: {
        ...HEADERS,
        authorization: `Bearer ${kept.secret}`,
        'mcp-session-id': keptSession,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'echo', arguments: { message: 'kept' } },
      }),
    })
    assert.equal(after.status, 200)
    await after.arrayBuffer()
    const counts = await counting.counts()
    assert.equal(counts.tool_calls, before + 1, 'the revoked call reached the local server')
  })

  it('runs a pipelined call only once the answer before it is done, refused if revoked meanwhile', async () => {
    // A local server that holds each `hold` call until told, then answers it in two writes.
    const held = new Map<number, ServerResponse>()
    const arrivals: ((id: number) => void)[] = []
    let opened = 0
    const upstream = createServer((req, res) => {
      const parts: Buffer[] = []
      req.on('data', (c: Buffer) => parts.push(c))
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end()
        const m = JSON.parse(Buffer.concat(parts).toString()) as { id?: number; method: string }
        if (m.id === undefined) return void res.writeHead(202).end()
        if (m.method === 'tools/call') {
          held.set(m.id, res)
          for (const arrived of arrivals.splice(0)) arrived(m.id)
          return
        }
        const result = m.method === 'initialize' ? initializeResult() : {}
        const session = m.method === 'initialize' ? `s${++opened}` : req.headers['mcp-session-id']
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': session })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }))
      })
    })
    servers.push(upstream)
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const port = (upstream.address() as AddressInfo).port
    const arrived = (id: number) =>
      held.has(id)
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const wait = (got: number) => (got === id ? resolve() : arrivals.push(wait))
            arrivals.push(wait)
          })
    const release = (id: number) => {
      const res = held.get(id)!
      res.writeHead(200, { 'content-type': 'application/json' })
      const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } })
      res.write(answer.slice(0, 10))
      res.end(answer.slice(10))
    }

    const made = await owner.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'held', access: 'token' },
    )
    assert.equal(made.status, 201, JSON.stringify(made.json))
    clients.push(
      await startClient(service, made.json.key, ['--upstream', `http://127.0.0.1:${port}/mcp`]),
    )
    const url = made.json.tunnel.mcp_url
    const tunnelId = made.json.tunnel.id
    const kept = await token(tunnelId, 'kept')
    const gone = await token(tunnelId, 'gone')
    const keptSession = await session(url, { authorization: `Bearer ${kept.secret}` })
    const goneSession = await session(url, { authorization: `Bearer ${gone.secret}` })
    const call = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold' } })
    const { host, pathname } = new URL(url)
    const socket = connectTcp(service.port, '127.0.0.1')
    sockets.push(socket)
    const received: Buffer[] = []
    socket.on('data', (c: Buffer) => received.push(c))
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    const post = (id: number, secret: string, sessionId: string) =>
      `POST ${pathname} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-06-18\r\n` +
      `authorization: Bearer ${secret}\r\nmcp-session-id: ${sessionId}\r\n` +
      `content-length: ${Buffer.byteLength(call(id))}\r\n\r\n${call(id)}`
    // The kept agent's call first, held; the gone agent's pipelined behind it waits its turn
    // (http/in-turn.ts). Before, it ran at once, and its answer came while its refusal waited.
    socket.write(post(1, kept.secret, keptSession) + post(2, gone.secret, goneSession))
    await arrived(1)
    const probe = publicFetch(url, {
      method: 'POST',
      headers: {
        ...HEADERS,
        authorization: `Bearer ${gone.secret}`,
        'mcp-session-id': goneSession,
      },
      body: call(3),
    })
    await arrived(3)
    assert.ok(!held.has(2), 'the pipelined call waits for the answer before it')
    const deleted = await owner.api('DELETE', `/api/tunnels/${tunnelId}/agent-tokens/${gone.id}`)
    assert.equal(deleted.status, 204)
    assert.equal((await probe).status, 403)
    // A call of the kept agent on another connection, answered meanwhile.
    const later = publicFetch(url, {
      method: 'POST',
      headers: {
        ...HEADERS,
        authorization: `Bearer ${kept.secret}`,
        'mcp-session-id': keptSession,
      },
      body: call(4),
    })
    await arrived(4)
    release(4)
    assert.equal((await later).status, 200)
    // The kept call's answer done, the pipelined call's turn comes: its token is unknown by
    // then (401, as for any request of a deleted token), and it is never forwarded.
    release(1)
    const text = () => Buffer.concat(received).toString()
    for (let tries = 0; !/HTTP\/1.1 401[\s\S]*\r\n\r\n\{/.test(text()) && tries < 500; tries++)
      await new Promise((r) => setTimeout(r, 20))
    assert.match(text(), /^HTTP\/1.1 200/)
    assert.match(text(), /HTTP\/1.1 401[\s\S]*"policy_code":"unauthorized"/)
    assert.ok(!held.has(2), 'the revoked call reached the local server')
    assert.equal(service.proc.proc.exitCode, null)
  })
})
