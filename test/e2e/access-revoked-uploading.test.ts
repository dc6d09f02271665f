/**
 * A request whose access is taken away while its body still arrives gets `403 access_denied`
 * carrying the id(s) of what it refused, as every refusal does: the edge reads the rest of the
 * body under the body budgets it was being read under, then refuses it, one error per request of a
 * batch, and closes the connection after the refusal (the agent, still writing, never sees a
 * reset). Before, the body was discarded as soon as the access went and the refusal said
 * `id: null`, so the agent's SDK could not tell which call failed. A body that passes a bound
 * after the revocation is let go at once and refused with `id: null` (nothing of it is kept).
 * Real burrowd and `burrow up` in front of a local server; the requests written on raw sockets.
 */
import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Child } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { parsePrometheus } from '../../packages/server/test/helpers/parse-prometheus.js'
import { startClient, startService, type Service } from '../helpers/stack.js'
import { signUp, type WebUser } from '../helpers/web-client.js'

/** Bodies of more than this are refused whole (so a chunked body can pass it mid-way). */
const MAX_BODY = 2 * 1024 * 1024

/** A raw connection to burrowd, and everything it received. */
interface Raw {
  readonly socket: Socket
  readonly events: string[]
  readonly closed: Promise<unknown>
  received(): string
}

/** One answer read off a raw connection: its status and JSON body. */
interface RawAnswer {
  readonly status: number
  readonly json: unknown
}

describe('a request revoked while its body arrives', { timeout: 120_000 }, () => {
  let service: Service
  let owner: WebUser
  let url: string
  let tunnelId: string
  let upstream: Server
  const sockets: Socket[] = []
  const clients: Child[] = []
  /** Calls the local server received, by id, and those it holds until released. */
  const received: unknown[] = []
  const held = new Map<unknown, ServerResponse>()
  const arrivals: (() => void)[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'info', BURROW_MAX_BODY_BYTES: String(MAX_BODY) })
    owner = await signUp(`http://127.0.0.1:${service.port}`, 'uploader')
    // The local server: a GET is a stream left open, a call named `hold` is held until released,
    // any other request is answered at once.
    upstream = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write(': open\n\n')
        return
      }
      const parts: Buffer[] = []
      req.on('data', (c: Buffer) => parts.push(c))
      req.on('end', () => {
        const m = JSON.parse(Buffer.concat(parts).toString()) as {
          id?: unknown
          method: string
          params?: { name?: string }
        }
        received.push(m.id)
        if (m.id === undefined) return void res.writeHead(202).end()
        if (m.params?.name === 'hold') {
          held.set(m.id, res)
          for (const arrived of arrivals.splice(0)) arrived()
          return
        }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }))
      })
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    const port = (upstream.address() as AddressInfo).port
    const made = await owner.api<{ tunnel: { id: string; mcp_url: string }; key: string }>(
      'POST',
      '/api/tunnels',
      { name: 'uploads', access: 'token' },
    )
    assert.equal(made.status, 201, JSON.stringify(made.json))
    url = made.json.tunnel.mcp_url
    tunnelId = made.json.tunnel.id
    clients.push(
      await startClient(service, made.json.key, ['--upstream', `http://127.0.0.1:${port}/mcp`]),
    )
  })

  after(async () => {
    for (const s of sockets) s.destroy()
    upstream?.closeAllConnections()
    upstream?.close()
    for (const c of clients) await c.stop()
    await service?.close()
  })

  /** A new agent token of the tunnel. */
  async function token(name: string): Promise<{ id: string; secret: string }> {
    const t = await owner.api<{ agent_token: { id: string }; secret: string }>(
      'POST',
      `/api/tunnels/${tunnelId}/agent-tokens`,
      { name },
    )
    assert.equal(t.status, 201)
    return { id: t.json.agent_token.id, secret: t.json.secret }
  }

  /**
   * Revoke `gone`, and wait until burrowd has acted on it: the agent's own GET stream, admitted
   * after its upload, ends (the edge checks a tunnel's open requests in the order admitted).
   */
  async function revoke(gone: { id: string; secret: string }): Promise<void> {
    const probe = await publicFetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', authorization: `Bearer ${gone.secret}` },
    })
    assert.equal(probe.status, 200)
    const ended = (async () => {
      try {
        for await (const chunk of probe.body ?? []) void chunk
      } catch {
        // ended by the edge
      }
    })()
    const deleted = await owner.api('DELETE', `/api/tunnels/${tunnelId}/agent-tokens/${gone.id}`)
    assert.equal(deleted.status, 204)
    await ended
  }

  /** A raw connection to burrowd. */
  async function raw(): Promise<Raw> {
    const socket = connectTcp(service.port, '127.0.0.1')
    sockets.push(socket)
    const events: string[] = []
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => (text += d))
    socket.on('error', (e) => events.push(`error ${(e as NodeJS.ErrnoException).code}`))
    const closed = new Promise((r) => socket.once('close', r))
    socket.once('end', () => events.push('end'))
    await new Promise((r) => socket.once('connect', r))
    return { socket, events, closed, received: () => text }
  }

  /** A POST's head for `secret`'s agent; `length` null for a chunked body. */
  function postHead(secret: string, length: number | null, version = '2025-06-18'): string {
    const { host, pathname } = new URL(url)
    return (
      `POST ${pathname} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-protocol-version: ${version}\r\n` +
      `authorization: Bearer ${secret}\r\n` +
      (length === null ? 'transfer-encoding: chunked\r\n\r\n' : `content-length: ${length}\r\n\r\n`)
    )
  }

  /** A call whose arguments make it `size` bytes or so. */
  function call(id: unknown, size: number, name = 'echo'): Record<string, unknown> {
    return {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: { pad: 'x'.repeat(size) } },
    }
  }

  /** Write `body` in `pieces` writes, a turn apart. */
  async function writeSlowly(socket: Socket, body: Buffer, pieces: number): Promise<void> {
    const step = Math.ceil(body.length / pieces)
    for (let at = 0; at < body.length; at += step) {
      await new Promise((r) => setTimeout(r, 20))
      socket.write(body.subarray(at, at + step))
    }
  }

  /** The answers whole in `text`, in order (each with a content-length). */
  function answers(text: string): RawAnswer[] {
    const out: RawAnswer[] = []
    let at = 0
    for (;;) {
      const headEnd = text.indexOf('\r\n\r\n', at)
      if (headEnd < 0) return out
      const head = text.slice(at, headEnd)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1])
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN)
      if (!Number.isFinite(length) || text.length < headEnd + 4 + length) return out
      const body = Buffer.from(text.slice(headEnd + 4, headEnd + 4 + length), 'latin1')
      out.push({ status, json: JSON.parse(body.toString('utf8')) })
      at = headEnd + 4 + length
    }
  }

  /** Bytes of request bodies burrowd holds now. */
  async function bodyBytesHeld(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text()
    const family = parsePrometheus(text).find((f) => f.name === 'burrowd_edge_request_body_bytes')
    return Number(family?.metrics[0]?.value ?? 0)
  }

  /** Wait until burrowd holds `bytes` of request bodies or more (`atMost`: or less). */
  async function bodyBytesReach(bytes: number, atMost = false): Promise<void> {
    let held = 0
    for (let tries = 0; tries < 300; tries++) {
      held = await bodyBytesHeld()
      if (atMost ? held <= bytes : held >= bytes) return
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.fail(`burrowd holds ${held} bytes of bodies, not ${atMost ? 'at most' : ''} ${bytes}`)
  }

  /** The error envelope's ids in `json` (one, or one per envelope of a batch). */
  function refusedIds(json: unknown): unknown {
    const idOf = (e: unknown) => {
      const envelope = e as { id: unknown; error?: { data?: { policy_code?: string } } }
      assert.equal(envelope.error?.data?.policy_code, 'access_denied')
      return envelope.id
    }
    return Array.isArray(json) ? json.map(idOf) : idOf(json)
  }

  it("refuses a single request with its id once its body has arrived, the sender's pauses kept", async () => {
    const gone = await token('single')
    const body = Buffer.from(JSON.stringify(call('single-41', 1024 * 1024)))
    const half = 512 * 1024
    const c = await raw()
    c.socket.write(postHead(gone.secret, body.length) + body.subarray(0, half).toString('latin1'))
    await bodyBytesReach(half) // admitted: its body is being read
    await revoke(gone)
    // The sender paused: what was read is kept for the refusal, and counted.
    assert.ok((await bodyBytesHeld()) >= half, 'the body read so far is still counted')
    assert.equal(c.received(), '', 'no answer before the body has arrived')
    await writeSlowly(c.socket, body.subarray(half), 4)
    c.events.push('written')
    await c.closed
    assert.deepEqual(c.events, ['written', 'end'], 'no reset')
    const [answer, ...more] = answers(c.received())
    assert.equal(answer?.status, 403, c.received().slice(0, 300))
    assert.equal(more.length, 0)
    assert.equal(refusedIds(answer.json), 'single-41')
    assert.ok(!received.includes('single-41'), 'not forwarded')
    await bodyBytesReach(0, true)
  })

  it('refuses a batch with one error per request id', async () => {
    const gone = await token('batch')
    const batch = [
      call(1, 300 * 1024),
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } },
      { jsonrpc: '2.0', id: 'two', method: 'ping' },
      call(3, 300 * 1024),
    ]
    const body = Buffer.from(JSON.stringify(batch))
    const c = await raw()
    const part = 256 * 1024
    c.socket.write(postHead(gone.secret, body.length, '2025-03-26'))
    c.socket.write(body.subarray(0, part))
    await bodyBytesReach(part)
    await revoke(gone)
    await writeSlowly(c.socket, body.subarray(part), 3)
    await c.closed
    const [answer] = answers(c.received())
    assert.equal(answer?.status, 403, c.received().slice(0, 300))
    assert.deepEqual(refusedIds(answer.json), [1, 'two', 3])
    await bodyBytesReach(0, true)
  })

  it("refuses a pipelined request when its turn comes, behind another agent's answer", async () => {
    // Its access went before it ran: the token is unknown by then (401), as for any request of a
    // deleted token; before, it ran at once and was refused as revoked (403) behind the answer.
    const kept = await token('kept')
    const gone = await token('piped')
    const first = Buffer.from(JSON.stringify(call('kept-1', 10, 'hold')))
    const second = Buffer.from(JSON.stringify(call('piped-2', 512 * 1024)))
    const c = await raw()
    const arrived = new Promise<void>((resolve) => arrivals.push(resolve))
    const part = 128 * 1024
    // The kept agent's call first, held by the local server; the revoked agent's behind it. A
    // pipelined request runs only once the answers before it are done (http/in-turn.ts): it
    // waits, its body unread, while its agent's access goes.
    c.socket.write(postHead(kept.secret, first.length) + first.toString('latin1'))
    await arrived
    c.socket.write(postHead(gone.secret, second.length))
    c.socket.write(second.subarray(0, part))
    await revoke(gone)
    const res = held.get('kept-1')!
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 'kept-1', result: { content: [] } }))
    await writeSlowly(c.socket, second.subarray(part), 2)
    for (let tries = 0; answers(c.received()).length < 2 && tries < 500; tries++)
      await new Promise((r) => setTimeout(r, 20))
    const text = c.received()
    const [first200, refusal] = answers(text)
    assert.equal(first200?.status, 200, text.slice(0, 300))
    assert.equal(refusal?.status, 401, text.slice(0, 600))
    const envelope = refusal.json as { id: unknown; error: { data: { policy_code: string } } }
    assert.equal(envelope.error.data.policy_code, 'unauthorized')
    // Refused before its body is read (docs/security.md, "Who may call a tunnel"): no id.
    assert.equal(envelope.id, null)
    assert.ok(!received.includes('piped-2'), 'not forwarded')
    await bodyBytesReach(0, true)
  })

  it('refuses a body that passes the bounds after the revocation without ids, keeping none of it', async () => {
    const gone = await token('oversized')
    const c = await raw()
    const chunk = (bytes: Buffer) =>
      `${bytes.length.toString(16)}\r\n${bytes.toString('latin1')}\r\n`
    const start = Buffer.from(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"pad":"`)
    c.socket.write(
      postHead(gone.secret, null) + chunk(start) + chunk(Buffer.alloc(256 * 1024, 0x78)),
    )
    await bodyBytesReach(256 * 1024)
    await revoke(gone)
    // Past the size limit: refused at once without ids, what was read let go.
    for (let sent = 256 * 1024; sent <= MAX_BODY; sent += 256 * 1024) {
      c.socket.write(chunk(Buffer.alloc(256 * 1024, 0x78)))
    }
    await bodyBytesReach(0, true)
    for (let tries = 0; answers(c.received()).length === 0 && tries < 300; tries++)
      await new Promise((r) => setTimeout(r, 20))
    const [answer] = answers(c.received())
    assert.equal(answer?.status, 403, c.received().slice(0, 300))
    assert.equal(refusedIds(answer.json), null)
    assert.equal(c.events.join(), '', 'the connection stays while the rest arrives')
    // The rest is read and discarded; the connection closes after it.
    c.socket.write(chunk(Buffer.from('"}}')) + '0\r\n\r\n')
    c.events.push('written')
    await c.closed
    assert.deepEqual(c.events, ['written', 'end'])
    assert.ok(!received.includes('big'), 'not forwarded')
  })
})
