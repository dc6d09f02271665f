/**
 * The broker as `burrow up` meets it: the real built burrowd (`npx tsc -b` first) on a real port,
 * and a scripted fake tunnel client (test/helpers/fake-client.ts) speaking the wire protocol.
 * Covers the key check before the 101, the HELLO/WELCOME handshake, one connection per tunnel,
 * resume within the grace period, protocol errors (close 1002), requests held while a client
 * reconnects, and the drain a client asks for with GOAWAY.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ERROR_HEADER, GOAWAY_CODE, PROTOCOL_VERSION, type HeaderPairs } from '@burrow/protocol'
import {
  connectFake,
  openFake,
  within,
  type FakeClient,
} from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { hostOf, postJson, type EdgeResponse } from '../helpers/edge-request.js'
import { rawUpgrade } from '../helpers/raw-upgrade.js'

const JSON_HEADERS: HeaderPairs = [['content-type', 'application/json']]

/** Default BURROW_QUEUE_WAIT_MS: how long a public request waits for a reconnecting client. */
const QUEUE_WAIT_MS = 5_000

describe('broker', () => {
  let service: Service
  const clients: FakeClient[] = []

  /** Connect a fake client that is closed after the test. */
  const connect = async (key: string, hello = {}) => {
    const client = await connectFake(service.broker, key, hello)
    clients.push(client)
    return client
  }
  /** POST a JSON-RPC request to a tunnel's public URL. */
  const call = (publicUrl: string, id: string | number, method = 'tools/list') =>
    postJson(service.port, hostOf(publicUrl), { jsonrpc: '2.0', id, method })

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
  })

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })

  after(async () => {
    await service?.close()
  })

  it('refuses an upgrade without a key with 401 and the envelope, before any 101', async () => {
    const outcome = await rawUpgrade(service.port)
    assert.equal(outcome.kind, 'response', 'the broker switched protocols without a key')
    assert.equal(outcome.headers[ERROR_HEADER], 'unauthorized')
    assertRefusal(outcome, { policy: 'unauthorized', reason: /Authorization: Bearer/ })
  })

  it('refuses an unknown key with 401 and the envelope, before any 101', async () => {
    const unknown = await rawUpgrade(service.port, {
      authorization: 'Bearer mtk_this_key_was_never_issued',
    })
    assert.equal(unknown.kind, 'response', 'the broker switched protocols for an unknown key')
    assertRefusal(unknown, { policy: 'unauthorized', reason: /unknown|rotated/ })

    // The same request with a real key does switch protocols, so the refusal above is the key's.
    const { key } = await service.tunnel('upgrade-control')
    const known = await rawUpgrade(service.port, { authorization: `Bearer ${key}` })
    assert.deepEqual(known, { kind: 'upgrade', status: 101 })
  })

  it('connects a valid tunnel client during a flood of guesses from many addresses', async () => {
    const { key, publicUrl } = await service.tunnel('under-attack')
    // Guesses from 16 connections at once, each from an address of its own (loopback is a trusted
    // proxy, so X-Forwarded-For names the client), until the node-wide bucket is empty: an unknown
    // key from an address that never guessed is then answered 429.
    let flooding = true
    let sent = 0
    const refused = new Map<string, number>()
    const guess = async () => {
      const n = sent++
      const outcome = await rawUpgrade(service.port, {
        authorization: 'Bearer mtk_guessed',
        'x-forwarded-for': `2001:db8:${n >> 8}:${n & 255}::1`,
      })
      const code = outcome.kind === 'response' ? String(outcome.headers[ERROR_HEADER]) : 'upgrade'
      refused.set(code, (refused.get(code) ?? 0) + 1)
      return outcome
    }
    let drained: () => void = () => {}
    const empty = new Promise<void>((resolve) => (drained = resolve))
    const flood = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (flooding) {
          const outcome = await guess()
          if (outcome.kind === 'response' && outcome.status === 429) {
            assert.ok(Number(outcome.headers['retry-after']) >= 1)
            drained()
          }
        }
      }),
    )
    try {
      await within(empty, 30_000, 'the node-wide bucket to empty')
      // While the flood goes on, a tunnel client with a valid key connects and serves.
      const client = await connect(key)
      const answered = call(publicUrl, 7)
      const request = await client.nextRequest()
      request.replyJson(200, { jsonrpc: '2.0', id: 7, result: { tools: [] } })
      assert.equal((await answered).status, 200)
      const known = await rawUpgrade(service.port, {
        authorization: `Bearer ${key}`,
        'x-forwarded-for': '2001:db8:ffff::1',
      })
      assert.deepEqual(known, { kind: 'upgrade', status: 101 })
    } finally {
      flooding = false
      await flood
    }
    assert.deepEqual(
      [...refused.keys()].filter((code) => code !== 'unauthorized' && code !== 'rate_limited'),
      [],
    )
    assert.ok((refused.get('unauthorized') ?? 0) >= 200, 'the bucket held 200 failures')
  })

  it('refuses a malformed handshake with a valid key with 400 and the envelope', async () => {
    const { key } = await service.tunnel('bad-handshake')
    const authorization = `Bearer ${key}`
    for (const [headers, reason] of [
      [{ 'sec-websocket-key': 'not-a-key' }, /Sec-WebSocket-Key/],
      [{ 'sec-websocket-key': '' }, /Sec-WebSocket-Key/],
      [{ 'sec-websocket-version': '12' }, /Sec-WebSocket-Version must be 13/],
    ] as const) {
      const outcome = await rawUpgrade(service.port, { authorization, ...headers })
      assert.equal(outcome.kind, 'response', JSON.stringify(headers))
      assertRefusal(outcome, { policy: 'invalid_request', reason })
    }
  })

  it('welcomes a valid key with the tunnel id, its public URL and a fresh session', async () => {
    const tunnel = await service.tunnel('welcome')
    const client = await connect(tunnel.key)
    const welcome = client.welcome
    assert.equal(welcome.version, PROTOCOL_VERSION)
    assert.equal(welcome.tunnelId, tunnel.id)
    assert.equal(welcome.publicUrl, `http://welcome--acme.localhost:${service.port}`)
    assert.equal(welcome.publicUrl, tunnel.publicUrl)
    assert.equal(welcome.resumed, false)
    assert.ok(welcome.resumeToken.length >= 16, 'a resume token is issued')
    assert.equal(welcome.graceSecs, 30)
    assert.equal(welcome.heartbeatMs, 15_000)
  })

  it('closes the connection with 1002 when HELLO names an unsupported version', async () => {
    const tunnel = await service.tunnel('future')
    const client = openFake(service.broker, tunnel.key, { version: PROTOCOL_VERSION + 1 })
    clients.push(client)
    const closed = await within(client.closed, 5_000, 'the broker to close the socket')
    assert.equal(closed.code, 1002)
    assert.match(closed.reason, /version/)
    await assert.rejects(client.ready, /before WELCOME/)
  })

  it('gives the tunnel to a second connection with the same key and sends the first GOAWAY(replaced)', async () => {
    const tunnel = await service.tunnel('takeover')
    const first = await connect(tunnel.key)
    const second = await connect(tunnel.key)
    assert.equal(second.welcome.tunnelId, tunnel.id)
    const goaway = await first.nextGoaway()
    assert.equal(goaway.code, GOAWAY_CODE.replaced)
    assert.equal(second.goaways.length, 0)

    const pending = call(tunnel.publicUrl, 'after-takeover')
    const req = await second.nextRequest()
    req.replyJson(200, { jsonrpc: '2.0', id: 'after-takeover', result: { via: 'second' } })
    const res = await pending
    assert.equal(res.status, 200)
    assert.deepEqual(JSON.parse(res.text), {
      jsonrpc: '2.0',
      id: 'after-takeover',
      result: { via: 'second' },
    })
    assert.equal(first.requests.length, 0, 'the replaced connection got a new request')
  })

  it('resumes the session when the client reconnects with its token within the grace period', async () => {
    const tunnel = await service.tunnel('resume')
    const first = await connect(tunnel.key)
    await first.close()
    const again = await connect(tunnel.key, { resume: first.welcome.resumeToken })
    assert.equal(again.welcome.resumed, true)
    assert.equal(again.welcome.tunnelId, tunnel.id)
    assert.equal(again.welcome.publicUrl, first.welcome.publicUrl)
  })

  it('starts a new session for a garbage resume token', async () => {
    const tunnel = await service.tunnel('garbage-token')
    const first = await connect(tunnel.key)
    await first.close()
    const again = await connect(tunnel.key, { resume: 'not.a.token' })
    assert.equal(again.welcome.resumed, false)
    assert.notEqual(again.welcome.resumeToken, first.welcome.resumeToken)
  })

  it('closes the connection with 1002 on a text message', async () => {
    const tunnel = await service.tunnel('text-message')
    const client = await connect(tunnel.key)
    client.sendRaw('{"type":"hello"}')
    const closed = await within(client.closed, 5_000, 'the broker to close the socket')
    assert.equal(closed.code, 1002)
  })

  it('closes the connection with 1002 on a malformed frame', async () => {
    const tunnel = await service.tunnel('bad-frame')
    const malformed = [
      Buffer.from([0x63, 0, 0, 0, 0, 0]), // unknown frame type 99
      Buffer.from([0x05, 0]), // shorter than a frame header
      Buffer.from([0x08, 0, 0, 0, 0, 0, 1]), // PING with a truncated payload
    ]
    for (const bytes of malformed) {
      const client = await connect(tunnel.key)
      client.sendRaw(bytes)
      const closed = await within(client.closed, 5_000, 'the broker to close the socket')
      assert.equal(closed.code, 1002, `frame ${bytes.toString('hex')}`)
    }
  })

  it('closes the connection with 1002 on a second HELLO', async () => {
    const tunnel = await service.tunnel('second-hello')
    const client = await connect(tunnel.key)
    client.mux.control({ type: 'hello', hello: { version: PROTOCOL_VERSION, agent: 'fake/1' } })
    const closed = await within(client.closed, 5_000, 'the broker to close the socket')
    assert.equal(closed.code, 1002)
  })

  it('holds requests while the client reconnects within the grace period, then serves them', async () => {
    const tunnel = await service.tunnel('reconnect')
    const first = await connect(tunnel.key)
    await first.close()
    await sleep(100) // let burrowd see the socket close, not only the close handshake

    const started = Date.now()
    let answered: EdgeResponse | undefined
    const pending = call(tunnel.publicUrl, 41).then((res) => (answered = res))
    await sleep(1_000)
    assert.equal(answered, undefined, 'the request was answered while no client was connected')

    const second = await connect(tunnel.key, { resume: first.welcome.resumeToken })
    assert.equal(second.welcome.resumed, true)
    const req = await second.nextRequest()
    assert.deepEqual(JSON.parse((await req.body).toString()), {
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/list',
    })
    req.replyJson(200, { jsonrpc: '2.0', id: 41, result: { tools: [] } })
    const res = await pending
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: 41, result: { tools: [] } })
    const waited = Date.now() - started
    assert.ok(waited >= 1_000 && waited < QUEUE_WAIT_MS, `waited ${waited} ms`)
  })

  it('answers 503 tunnel_offline with the request id when no client comes back within the wait', async () => {
    const tunnel = await service.tunnel('gone')
    const client = await connect(tunnel.key)
    await client.close()
    await sleep(100)

    const started = Date.now()
    const res = await call(tunnel.publicUrl, 'req-503')
    const waited = Date.now() - started
    assertRefusal(res, { policy: 'tunnel_offline', id: 'req-503', reason: /burrow up/ })
    assert.ok(
      waited >= QUEUE_WAIT_MS - 250 && waited < QUEUE_WAIT_MS + 3_000,
      `refused after ${waited} ms; expected about BURROW_QUEUE_WAIT_MS (${QUEUE_WAIT_MS} ms)`,
    )
  })

  it('routes nothing new to a client that sent GOAWAY(drain), while its in-flight request completes', async () => {
    const tunnel = await service.tunnel('drain')
    const client = await connect(tunnel.key)
    const inflight = call(tunnel.publicUrl, 1)
    const first = await client.nextRequest()

    client.sendGoaway(GOAWAY_CODE.drain)
    await client.roundTrip()
    const started = Date.now()
    let lateAnswered = false
    const late = call(tunnel.publicUrl, 'late').finally(() => (lateAnswered = true))
    await sleep(300)
    assert.equal(lateAnswered, false, 'the new request was answered at once instead of waiting')

    first.replyJson(200, { jsonrpc: '2.0', id: 1, result: { finished: true } })
    const done = await inflight
    assert.equal(done.status, 200)
    assert.deepEqual(JSON.parse(done.text), { jsonrpc: '2.0', id: 1, result: { finished: true } })

    const refused = await late
    const waited = Date.now() - started
    assertRefusal(refused, { policy: 'tunnel_offline', id: 'late' })
    assert.ok(waited >= QUEUE_WAIT_MS - 250, `refused after ${waited} ms, without waiting`)
    assert.equal(client.requests.length, 1, 'a draining client was sent a new request')
    assert.equal(client.ws.readyState, client.ws.OPEN, 'the broker closed a draining client')
  })

  it('resets the streams of a client that drops, so the agent gets 503 tunnel_offline', async () => {
    const tunnel = await service.tunnel('drop-before-response')
    const client = await connect(tunnel.key)
    const pending = call(tunnel.publicUrl, 7)
    await client.nextRequest()
    await client.terminate()
    assertRefusal(await pending, { policy: 'tunnel_offline', id: 7, reason: /went away/ })
  })
})

describe('broker with a 1 s grace period', () => {
  let service: Service
  const clients: FakeClient[] = []

  before(async () => {
    service = await startService({ BURROW_LOG: 'info', BURROW_RESUME_GRACE_SECS: '1' })
  })

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })

  after(async () => {
    await service?.close()
  })

  it('refuses requests for a tunnel that never connected at once, with 503 and the request id', async () => {
    const tunnel = await service.tunnel('never-connected')
    await sleep(1_100) // past the grace burrowd gives every tunnel after it starts
    const started = Date.now()
    const res = await postJson(service.port, hostOf(tunnel.publicUrl), {
      jsonrpc: '2.0',
      id: 'nobody-home',
      method: 'tools/list',
    })
    assertRefusal(res, { policy: 'tunnel_offline', id: 'nobody-home', reason: /burrow up/ })
    assert.ok(Date.now() - started < 1_000, 'a request for a tunnel with no client waited')
  })

  it('refuses requests at once after the grace period, and does not resume the old session', async () => {
    const tunnel = await service.tunnel('expired')
    const first = await connectFake(service.broker, tunnel.key)
    clients.push(first)
    assert.equal(first.welcome.graceSecs, 1)
    await first.close()
    await sleep(1_500)

    const started = Date.now()
    const res = await postJson(service.port, hostOf(tunnel.publicUrl), {
      jsonrpc: '2.0',
      id: 3,
      method: 'ping',
    })
    assertRefusal(res, { policy: 'tunnel_offline', id: 3 })
    assert.ok(Date.now() - started < 1_000, 'a request for a long-gone client waited')

    const again = await connectFake(service.broker, tunnel.key, {
      resume: first.welcome.resumeToken,
    })
    clients.push(again)
    assert.equal(again.welcome.resumed, false)
    const pending = postJson(service.port, hostOf(tunnel.publicUrl), {
      jsonrpc: '2.0',
      id: 4,
      method: 'ping',
    })
    ;(await again.nextRequest()).reply(200, JSON_HEADERS, '{"jsonrpc":"2.0","id":4,"result":{}}')
    assert.equal((await pending).status, 200)
  })
})
