/**
 * A hostile tunnel client: a hand-made client holding a valid tunnel key speaks the tunnel
 * protocol against a real burrowd (found by a hostile review): DATA before its RESPONSE, a key
 * rotated while a connection waits to say HELLO, connections that drain and stay, a 204 with a
 * body, and RESPONSE frames repeated on one stream, which must neither stall burrowd for other
 * tunnels nor grow its memory.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import {
  decodeFrame,
  encodeFrame,
  GOAWAY_CODE,
  PROTOCOL_VERSION,
  type Frame,
} from '@burrow/protocol'
import { WebSocket } from 'ws'
import { MAX_LINKS_PER_TUNNEL } from '../../packages/server/src/broker/tunnel-registry.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'
import { rssOf } from '../helpers/rss.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  edgeRequest,
  hostOf,
  openRequest,
} from '../../packages/server/test/helpers/edge-request.js'

const run = promisify(execFile)

const CALL =
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}'
const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
}

/** A raw tunnel client: frames in, frames out, nothing answered on its own. */
class Raw {
  readonly ws: WebSocket
  readonly frames: Frame[] = []
  readonly opened: Promise<void>
  readonly closed: Promise<{ code: number; reason: string }>
  private waiters: ((f: Frame) => void)[] = []
  onOpenFrame: ((f: Extract<Frame, { type: 'open' }>) => void) | null = null

  constructor(broker: string, key: string) {
    this.ws = new WebSocket(broker, {
      perMessageDeflate: false,
      headers: { authorization: `Bearer ${key}` },
    })
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve())
      this.ws.once('error', reject)
    })
    this.opened.catch(() => {})
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    this.ws.on('message', (data: Buffer) => {
      const f = decodeFrame(data)
      this.frames.push(f)
      if (f.type === 'open') this.onOpenFrame?.(f)
      for (const w of this.waiters.splice(0)) w(f)
    })
  }

  send(frame: Frame): void {
    this.ws.send(encodeFrame(frame))
  }

  hello(): void {
    this.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'hostile/1' } })
  }

  /** Answer stream `streamId` with CALL's result, whole. */
  answerCall(streamId: number): void {
    this.send({
      type: 'response',
      streamId,
      head: { status: 200, headers: [['content-type', 'application/json']] },
      body: Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"content":[]}}'),
      fin: true,
    })
  }

  /** Wait for the first frame (already received or coming) matching `pred`. */
  async next(pred: (f: Frame) => boolean, ms = 10_000): Promise<Frame> {
    const found = this.frames.find(pred)
    if (found) return found
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a frame')), ms)
      const w = (f: Frame) => {
        if (pred(f)) {
          clearTimeout(timer)
          resolve(f)
        } else this.waiters.push(w)
      }
      this.waiters.push(w)
    })
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN
  }
}

/**
 * A tunnel client over a bare socket that never answers the service's close frame and keeps
 * writing after it (as `ws` would not): the WebSocket framing written by hand, masked with a
 * zero key, server frames read only for their opcode and close code.
 */
class DeafToClose {
  readonly socket: Socket
  /** The close frame's code, once one came. */
  readonly closeCode: Promise<number>
  readonly ended: Promise<void>

  private constructor(socket: Socket, closeCode: Promise<number>) {
    this.socket = socket
    this.closeCode = closeCode
    // Its own side stays open (`allowHalfOpen`): the service's end is what comes.
    this.ended = new Promise((resolve) => {
      socket.once('end', () => resolve())
      socket.once('close', () => resolve())
    })
  }

  static async open(broker: string, key: string): Promise<DeafToClose> {
    const url = new URL(broker)
    const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true })
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\n` +
        'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
        `Authorization: Bearer ${key}\r\n\r\n`,
    )
    let buffered = Buffer.alloc(0)
    let upgraded = false
    let onUpgraded = (): void => {}
    const upgrade = new Promise<void>((resolve) => (onUpgraded = resolve))
    let onClose = (_code: number): void => {}
    const closeCode = new Promise<number>((resolve) => (onClose = resolve))
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end < 0) return
        assert.match(buffered.subarray(0, end).toString('latin1'), /^HTTP\/1\.1 101 /)
        buffered = buffered.subarray(end + 4)
        upgraded = true
        onUpgraded()
      }
      // Server frames are unmasked; lengths up to 64 KiB are all this needs.
      while (buffered.length >= 2) {
        const opcode = buffered[0]! & 0x0f
        let length = buffered[1]! & 0x7f
        let at = 2
        if (length === 126) {
          if (buffered.length < 4) return
          length = buffered.readUInt16BE(2)
          at = 4
        }
        if (buffered.length < at + length) return
        if (opcode === 8) onClose(buffered.readUInt16BE(at))
        buffered = buffered.subarray(at + length)
      }
    })
    await upgrade
    return new DeafToClose(socket, closeCode)
  }

  /** Send `frame` as one binary message. */
  send(frame: Frame): void {
    const payload = encodeFrame(frame)
    assert.ok(payload.length < 126)
    const head = Buffer.from([0x82, 0x80 | payload.length, 0, 0, 0, 0])
    this.socket.write(Buffer.concat([head, payload]))
  }
}

async function connected(service: Service, key: string): Promise<Raw> {
  const c = new Raw(service.broker, key)
  await c.opened
  c.hello()
  await c.next((f) => f.type === 'welcome')
  return c
}

describe('a hostile tunnel client', { timeout: 170_000 }, () => {
  let service: Service
  let token: string
  const clients: Raw[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(made.stdout) as { token: string }).token
  })

  after(async () => {
    for (const c of clients) c.ws.terminate()
    await service?.close()
  })

  const api = async (method: string, path: string) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    })
    return { status: res.status, json: (await res.json()) as Record<string, unknown> }
  }

  // DATA before RESPONSE: the edge writes the bytes with Node's implicit 200 head, without
  //    the sandbox CSP / nosniff every tunnel answer must carry, without a content type, and
  //    without the policy's shaper (nothing tapped or checked).
  it('never sends an answer without the sandbox CSP: DATA before RESPONSE', async () => {
    const tunnel = await service.tunnel('data-first')
    const c = await connected(service, tunnel.key)
    clients.push(c)
    const html = '<html><script>alert(document.domain)</script></html>'
    c.onOpenFrame = (f) => {
      c.send({ type: 'data', streamId: f.streamId, chunk: Buffer.from(html), fin: true })
    }
    const res = await edgeRequest(service.port, hostOf(tunnel.publicUrl), {
      method: 'GET',
      path: '/mcp',
      headers: { accept: 'text/html' },
    })
    // Either a refusal envelope, or an answer that carries the sandbox; never raw bytes.
    assert.match(
      String(res.headers['content-security-policy'] ?? ''),
      /sandbox/,
      `answer ${res.status} without the sandbox CSP: ${JSON.stringify(res.headers)} ${res.text}`,
    )
    assert.notEqual(res.text, html, 'the client’s bytes went out with no head of its own')
  })

  // Key rotation while a connection of the old key is between its upgrade and its HELLO:
  //    `registry.disconnect` closes only the slot's link, so the pending connection sends HELLO
  //    afterwards, is welcomed and serves the tunnel's public traffic with a revoked key.
  it('a connection upgraded with a key rotated before its HELLO is not welcomed', async () => {
    const tunnel = await service.tunnel('rotated')
    const c = new Raw(service.broker, tunnel.key)
    clients.push(c)
    await c.opened
    const rotated = await api('POST', `/api/tunnels/${tunnel.id}/rotate-key`)
    assert.equal(rotated.status, 200)
    c.hello()
    const outcome = await Promise.race([
      c.next((f) => f.type === 'welcome', 5_000).then(() => 'welcomed'),
      c.closed.then(() => 'closed'),
    ]).catch(() => 'nothing')
    if (outcome === 'welcomed') {
      // Show the impact: an agent's call to the tunnel reaches the holder of the revoked key.
      let body = ''
      c.onOpenFrame = (f) => {
        body = f.type === 'open' && f.body ? Buffer.from(f.body).toString() : ''
        c.answerCall(f.streamId)
      }
      const res = await edgeRequest(service.port, hostOf(tunnel.publicUrl), {
        method: 'POST',
        headers: JSON_HEADERS,
        body: CALL,
      })
      assert.fail(
        `welcomed after its key was rotated; the agent's call (${res.status}) reached it: ${body}`,
      )
    }
    assert.equal(outcome, 'closed')
  })

  // A connection closed for a rotated key that does not answer the close frame: frames it sent
  //    after the close were still read until it was cut off 2 s later, so its HELLO was welcomed,
  //    and the tunnel was taken from the owner's client of the new key (GOAWAY(replaced), which
  //    `burrow up` exits on). Found by a hostile review.
  it('a connection closed for a rotated key cannot say HELLO in the close handshake', async () => {
    const tunnel = await service.tunnel('deaf-to-close')
    const attacker = await DeafToClose.open(service.broker, tunnel.key)
    const rotated = await api('POST', `/api/tunnels/${tunnel.id}/rotate-key`)
    assert.equal(rotated.status, 200)
    assert.equal(await attacker.closeCode, 4001)
    const owner = await connected(service, rotated.json.key as string)
    clients.push(owner)
    attacker.send({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'hostile/1' } })
    // The service cuts the attacker off once the close handshake's wait is over; whatever it
    // read of the HELLO by then, it has acted on.
    await attacker.ended
    attacker.socket.destroy()
    assert.deepEqual(
      owner.frames.filter((f) => f.type === 'goaway'),
      [],
      'the owner keeps its tunnel',
    )
    owner.onOpenFrame = (f) => owner.answerCall(f.streamId)
    const res = await edgeRequest(service.port, hostOf(tunnel.publicUrl), {
      method: 'POST',
      headers: JSON_HEADERS,
      body: CALL,
    })
    assert.equal(res.status, 200, 'the owner answers the tunnel')
  })

  // GOAWAY(DRAIN) from the client: the broker stops routing to it, closes it after a while, and
  // at once when the key is rotated; one key holds at most a few connections at once.
  it('bounds the connections of one key, and closes drained ones when the key is rotated', async () => {
    const tunnel = await service.tunnel('drained')
    const drained: Raw[] = []
    for (let i = 0; i < MAX_LINKS_PER_TUNNEL; i++) {
      const c = await connected(service, tunnel.key)
      c.send({ type: 'goaway', lastStreamId: 0, code: GOAWAY_CODE.drain, reconnectAfterMs: 0 })
      drained.push(c)
      clients.push(c)
    }
    const extra = new Raw(service.broker, tunnel.key)
    clients.push(extra)
    assert.equal((await extra.closed).code, 1013, 'one more connection of the key is refused')
    const rotated = await api('POST', `/api/tunnels/${tunnel.id}/rotate-key`)
    assert.equal(rotated.status, 200)
    const closes = await Promise.all(drained.map((c) => c.closed))
    assert.ok(
      closes.every((c) => c.code === 4001),
      JSON.stringify(closes),
    )
  })

  // A 204 answer with a body: the edge writes `content-length` on a 204, which
  //    RFC 9110 §8.6 forbids (a client trusting it reads the next answer's bytes as this body).
  it('sends no content-length with a 204', async () => {
    const tunnel = await service.tunnel('no-content')
    const c = await connected(service, tunnel.key)
    clients.push(c)
    c.onOpenFrame = (f) =>
      c.send({
        type: 'response',
        streamId: f.streamId,
        head: { status: 204, headers: [['content-type', 'application/json']] },
        body: Buffer.from('{"jsonrpc":"2.0","id":7,"result":{}}'),
        fin: true,
      })
    const res = await rawRequest(
      service.port,
      [
        'POST /mcp HTTP/1.1',
        `Host: ${hostOf(tunnel.publicUrl)}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
      ],
      CALL,
    )
    assert.equal(res.status, 204)
    assert.equal(res.header('content-length'), undefined, JSON.stringify(res.headers))
  })

  // Repeated RESPONSE frames on one stream whose JSON answer the edge holds back (rug-pull
  //    protection on, the default): each builds a new ResponseMessages and adds a 'close'
  //    listener to the agent's response, kept until the response ends: burrowd's memory grows
  //    without bound while the WebSocket carries ~40 bytes per frame, no credit involved.
  it('does not grow without bound on RESPONSE frames repeated on one stream', async () => {
    const tunnel = await service.tunnel('responses')
    const c = await connected(service, tunnel.key)
    clients.push(c)
    const pid = service.proc.proc.pid!
    let streamId = 0
    c.onOpenFrame = (f) => (streamId = f.streamId)
    const open = openRequest(service.port, hostOf(tunnel.publicUrl), {
      method: 'POST',
      headers: JSON_HEADERS,
      body: CALL,
    })
    await c.next((f) => f.type === 'open')
    const head = encodeFrame({
      type: 'response',
      streamId,
      head: { status: 200, headers: [['content-type', 'application/json']] },
      fin: false,
    })
    const before = rssOf(pid) ?? 0
    let peak = before
    for (let round = 0; round < 40 && c.isOpen; round++) {
      for (let i = 0; i < 9_999; i++) c.ws.send(head)
      await new Promise<void>((r) => c.ws.send(head, () => r()))
      await new Promise((r) => setTimeout(r, 20))
      peak = Math.max(peak, rssOf(pid) ?? 0)
    }
    // Let the collector run: what stays is held by the agent's response, not garbage.
    await new Promise((r) => setTimeout(r, 4000))
    const settled = rssOf(pid) ?? 0
    const grown = Math.round((peak - before) / 1048576)
    const kept = Math.round((settled - before) / 1048576)
    const sent = Math.round((400_000 * head.length) / 1048576)
    const warned = /MaxListenersExceededWarning/.test(service.proc.stderr)
    open.req.destroy()
    assert.ok(
      kept < 100,
      `burrowd grew by ${grown} MB (${kept} MB still held 4 s later) for ${sent} MB of RESPONSE ` +
        `frames on one stream; connection ${c.isOpen ? 'still open' : 'closed'}; ` +
        `MaxListenersExceededWarning logged: ${warned}`,
    )
  })
})

// The same repeated RESPONSE frames, then the agent hangs up: every 'close' listener added by
//    `res.once` removes itself with a linear search, so n frames cost O(n²) on burrowd's only
//    thread: the whole process (every tunnel, the dashboard, /readyz) stops answering.
describe('RESPONSE frames repeated, then the agent leaves', { timeout: 170_000 }, () => {
  let service: Service
  let c: Raw | undefined

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
  })

  after(async () => {
    c?.ws.terminate()
    await service?.close()
  })

  it('keeps burrowd answering other requests', async () => {
    const tunnel = await service.tunnel('freeze')
    c = await connected(service, tunnel.key)
    const raw = c
    let streamId = 0
    raw.onOpenFrame = (f) => (streamId = f.streamId)
    const open = openRequest(service.port, hostOf(tunnel.publicUrl), {
      method: 'POST',
      headers: JSON_HEADERS,
      body: CALL,
    })
    await raw.next((f) => f.type === 'open')
    const head = encodeFrame({
      type: 'response',
      streamId,
      head: { status: 200, headers: [['content-type', 'application/json']] },
      fin: false,
    })
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 9_999; i++) raw.ws.send(head)
      await new Promise<void>((r) => raw.ws.send(head, () => r()))
    }
    // All 40,000 frames handled: a PING is answered after them.
    raw.send({ type: 'ping', payload: 42 })
    await raw.next((f) => f.type === 'pong', 60_000)
    const ready = async () => {
      const t0 = performance.now()
      try {
        const res = await fetch(`http://127.0.0.1:${service.port}/readyz`, {
          signal: AbortSignal.timeout(60_000),
        })
        await res.text()
      } catch {
        return Infinity // no answer within a minute
      }
      return Math.round(performance.now() - t0)
    }
    const baseline = await ready()
    open.req.destroy()
    await new Promise((r) => setTimeout(r, 50))
    const frozen = await ready()
    assert.ok(
      frozen < 1000,
      `/readyz took ${frozen} ms after the agent left (${baseline} ms before): burrowd was frozen`,
    )
  })
})
