/**
 * A request whose access is taken away while the edge still reads its body is answered with the
 * refusal and never forwarded, even when that answer cannot leave at once: behind another answer
 * on the same connection (HTTP/1.1 pipelining), the refusal waits, and the request went on to the
 * local server once its body arrived. Real burrowd and `burrow up` in front of the counting MCP
 * server, the pipelined requests written on a raw socket.
 */
import assert from 'node:assert/strict'
import { connect as connectTcp, type Socket } from 'node:net'
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

describe('a request revoked while its body is read', { timeout: 120_000 }, () => {
  let service: Service
  let counting: CountingServer
  let owner: WebUser
  const clients: Child[] = []
  const sockets: Socket[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    counting = await startCountingServer()
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'pipeliner')
  })

  after(async () => {
    for (const s of sockets) s.destroy()
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
})
