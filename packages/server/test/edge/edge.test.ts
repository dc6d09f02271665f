/**
 * The public edge as an agent meets it: raw HTTP requests to the real built burrowd (`npx tsc -b`
 * first) with a tunnel Host header, answered by a scripted fake tunnel client
 * (test/helpers/fake-client.ts). Covers what the edge serves and refuses (always with the one
 * envelope), which headers cross it each way, body limits and JSON-RPC checks, streaming without
 * buffering, and cancellation in both directions.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { connect as tcpConnect } from 'node:net'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { JSONRPC_CODE, RESET_CODE, type HeaderPairs } from '@burrow/protocol'
import { connectFake, within, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import {
  collect,
  edgeRequest,
  hostOf,
  openRequest,
  postJson,
  type EdgeRequestOptions,
} from '../helpers/edge-request.js'

/** BURROW_MAX_BODY_BYTES for this suite: above one 64 KiB frame, small enough to exceed cheaply. */
const MAX_BODY = 128 * 1024

const SSE_HEADERS: HeaderPairs = [
  ['content-type', 'text/event-stream'],
  ['cache-control', 'no-cache'],
]

describe('edge', () => {
  let service: Service
  let client: FakeClient
  let host: string
  let publicUrl: string

  const send = (opts: EdgeRequestOptions) => edgeRequest(service.port, host, opts)
  const post = (message: unknown, headers = {}) => postJson(service.port, host, message, headers)
  const postRaw = (body: string | Buffer, extra: Partial<EdgeRequestOptions> = {}) =>
    send({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      ...extra,
    })
  /** Requests the fake client has received so far; a refusal must leave this unchanged. */
  const seen = () => client.requests.length
  /** A second tunnel with its own client, for tests that end the client's connection. */
  const ownTunnel = async (name: string) => {
    const tunnel = await service.tunnel(name)
    const own = await connectFake(service.broker, tunnel.key)
    return { own, ownHost: hostOf(tunnel.publicUrl) }
  }

  before(async () => {
    service = await startService({ BURROW_LOG: 'info', BURROW_MAX_BODY_BYTES: String(MAX_BODY) })
    const tunnel = await service.tunnel('files')
    publicUrl = tunnel.publicUrl
    host = hostOf(publicUrl)
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close()
    await service?.close()
  })

  it('serves only /mcp on a tunnel host; other paths get the 404 envelope', async () => {
    const before = seen()
    for (const path of ['/', '/mcp/', '/mcp/tools', '/sse', '/MCP']) {
      const res = await send({ path })
      assertRefusal(res, { policy: 'not_found', reason: /only \/mcp/ })
    }
    assert.equal(seen(), before, 'a request for another path reached the client')

    const pending = send({ path: '/mcp?debug=1' })
    const req = await client.nextRequest()
    assert.equal(req.head.path, '/mcp?debug=1', 'the query string is kept')
    assert.equal(req.head.method, 'GET')
    req.reply(200, [['content-type', 'text/plain']], 'ok')
    assert.equal((await pending).status, 200)
  })

  it('answers 405 with Allow for methods other than GET, POST, DELETE and OPTIONS', async () => {
    const before = seen()
    for (const method of ['PUT', 'PATCH']) {
      const res = await send({ method, body: '{}' })
      assertRefusal(res, { policy: 'method_not_allowed', reason: new RegExp(method) })
      assert.equal(res.headers.allow, 'GET, POST, DELETE, OPTIONS')
    }
    const head = await send({ method: 'HEAD' })
    assert.equal(head.status, 405)
    assert.equal(head.headers['x-burrow-error'], 'method_not_allowed')
    assert.equal(head.headers.allow, 'GET, POST, DELETE, OPTIONS')
    assert.equal(seen(), before, 'a refused method reached the client')
  })

  it('answers a CORS preflight itself with 204 and the CORS headers', async () => {
    const before = seen()
    const res = await send({
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version',
      },
    })
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal(res.headers['access-control-allow-origin'], '*')
    const methods = String(res.headers['access-control-allow-methods']).split(/,\s*/)
    for (const m of ['GET', 'POST', 'DELETE', 'OPTIONS']) assert.ok(methods.includes(m), m)
    const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/)
    for (const h of [
      'content-type',
      'accept',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
    ]) {
      assert.ok(allowed.includes(h), `${h} is not allowed`)
    }
    assert.match(String(res.headers['access-control-expose-headers']), /mcp-session-id/)
    assert.ok(Number(res.headers['access-control-max-age']) > 0)
    assert.equal(seen(), before, 'the preflight reached the client')
  })

  it("allows the Mcp-Param-* headers a preflight asks for, which name a tool's parameters", async () => {
    const res = await send({
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': `content-type, Mcp-Param-Region, mcp-param-bad name, x-other, ${Array.from({ length: 40 }, (_, i) => `mcp-param-p${i}`).join(', ')}`,
      },
    })
    assert.equal(res.status, 204)
    const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/)
    assert.ok(allowed.includes('mcp-param-region'), allowed.join(', '))
    assert.ok(allowed.includes('mcp-name'))
    assert.ok(!allowed.includes('x-other'), 'only Mcp-Param-* names are added')
    assert.ok(!allowed.some((h) => h.includes(' ')))
    assert.equal(allowed.filter((h) => h.startsWith('mcp-param-')).length, 32, 'bounded')
  })

  it('answers a tunnel host nobody created as a tunnel that wants a sign-in', async () => {
    for (const unknown of [
      `nobody--acme.localhost:${service.port}`,
      `files--nobody.localhost:${service.port}`,
    ]) {
      const res = await postJson(service.port, unknown, { jsonrpc: '2.0', id: 1, method: 'ping' })
      assertRefusal(res, { policy: 'unauthorized', reason: /OAuth access token/ })
      assert.equal(
        res.headers['www-authenticate'],
        `Bearer resource_metadata="http://${unknown.split(':')[0]}:${service.port}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
      )
    }
  })

  it('answers /healthz on the service host with 200 ok', async () => {
    for (const serviceHost of [`127.0.0.1:${service.port}`, `localhost:${service.port}`]) {
      const res = await edgeRequest(service.port, serviceHost, { path: '/healthz' })
      assert.equal(res.status, 200)
      assert.equal(res.text, 'ok')
    }
    // On a tunnel host the same path is not the service's.
    assertRefusal(await send({ path: '/healthz' }), { policy: 'not_found' })
  })

  it('forwards request headers without origin, host or hop-by-hop headers, adding x-forwarded-*', async () => {
    const pending = post(
      { jsonrpc: '2.0', id: 'hdr', method: 'tools/list' },
      {
        origin: 'https://evil.example',
        connection: 'keep-alive, x-hop-secret',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        upgrade: 'h2c',
        'x-hop-secret': 'must not cross',
        'proxy-authorization': 'Basic Zm9vOmJhcg==',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-host': 'spoofed.example',
        forwarded: 'for=203.0.113.9',
        'x-real-ip': '203.0.113.9',
        'mcp-session-id': 'session-123',
        'mcp-protocol-version': '2025-06-18',
        // Read as Mcp-Session-Id and Mcp-Name by servers that map headers CGI-style.
        mcp_session_id: 'another-agents-session',
        mcp_name: 'a-denied-tool',
        authorization: 'Bearer agent-token',
        'accept-encoding': 'gzip, deflate, br',
        'x-custom': 'kept',
      },
    )
    const req = await client.nextRequest()
    const names = req.head.headers.map(([n]) => n)
    for (const gone of [
      'origin',
      'host',
      'connection',
      'keep-alive',
      'te',
      'upgrade',
      'x-hop-secret',
      'proxy-authorization',
      'forwarded',
      'x-real-ip',
      'mcp_session_id',
      'mcp_name',
    ]) {
      assert.ok(!names.includes(gone), `${gone} was forwarded: ${JSON.stringify(req.head.headers)}`)
    }
    for (const name of names) assert.equal(name, name.toLowerCase(), 'header names are lower-case')
    // From a trusted proxy (loopback, by default) the client is the address it reports.
    assert.deepEqual(req.headerValues('x-forwarded-for'), ['203.0.113.9'])
    assert.deepEqual(req.headerValues('x-forwarded-proto'), ['http'])
    const [forwardedHost, ...more] = req.headerValues('x-forwarded-host')
    assert.equal(more.length, 0)
    assert.match(String(forwardedHost), new RegExp(`^${new URL(publicUrl).hostname}(:\\d+)?$`))
    assert.deepEqual(req.headerValues('mcp-session-id'), ['session-123'])
    assert.deepEqual(req.headerValues('mcp-protocol-version'), ['2025-06-18'])
    assert.deepEqual(req.headerValues('authorization'), ['Bearer agent-token'])
    assert.deepEqual(req.headerValues('accept'), ['application/json, text/event-stream'])
    assert.deepEqual(req.headerValues('content-type'), ['application/json'])
    assert.deepEqual(req.headerValues('x-custom'), ['kept'])
    // The edge reads the answer: it asks for it uncompressed.
    assert.deepEqual(req.headerValues('accept-encoding'), ['identity'])
    assert.equal(req.head.method, 'POST')
    assert.equal(req.head.path, '/mcp')
    req.replyJson(200, { jsonrpc: '2.0', id: 'hdr', result: {} })
    assert.equal((await pending).status, 200)
  })

  it('drops the headers named in every Connection header of a request, not only the last one', async () => {
    const socket = tcpConnect(service.port, '127.0.0.1')
    socket.on('error', () => {})
    const body = '{"jsonrpc":"2.0","id":"two-conn","method":"ping"}'
    socket.write(
      'POST /mcp HTTP/1.1\r\n' +
        `Host: ${host}\r\n` +
        'Connection: x-first-hop\r\n' +
        'Connection: keep-alive\r\n' +
        'X-First-Hop: secret\r\n' +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    )
    try {
      const req = await client.nextRequest()
      req.replyJson(200, { jsonrpc: '2.0', id: 'two-conn', result: {} })
      assert.deepEqual(
        req.headerValues('x-first-hop'),
        [],
        'a header named by the first of two Connection headers was forwarded',
      )
    } finally {
      socket.destroy()
    }
  })

  it('drops the headers named in every Connection header of a response, not only the last one', async () => {
    const pending = post({ jsonrpc: '2.0', id: 'rc', method: 'ping' })
    const req = await client.nextRequest()
    req.reply(
      200,
      [
        ['content-type', 'application/json'],
        ['connection', 'x-first-hop'],
        ['connection', 'keep-alive'],
        ['x-first-hop', 'secret'],
      ],
      '{"jsonrpc":"2.0","id":"rc","result":{}}',
    )
    const res = await pending
    assert.equal(res.status, 200)
    assert.equal(
      res.headers['x-first-hop'],
      undefined,
      'a header named by the first of two connection headers reached the agent',
    )
  })

  it('refuses a POST whose Content-Length exceeds BURROW_MAX_BODY_BYTES with 413, unread', async () => {
    const before = seen()
    // Only the head is sent: the edge must answer from the declared length alone.
    const res = await send({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(MAX_BODY + 1) },
    })
    assertRefusal(res, { policy: 'payload_too_large', reason: new RegExp(String(MAX_BODY)) })
    assert.equal(res.headers.connection, 'close')
    assert.equal(seen(), before)
  })

  it('refuses a chunked POST (no Content-Length) once it grows past the limit with 413', async () => {
    const before = seen()
    const message = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'x', arguments: { pad: 'a'.repeat(MAX_BODY * 2) } },
    })
    const res = await postRaw(message, { chunked: true })
    assertRefusal(res, { policy: 'payload_too_large' })
    assert.equal(seen(), before)
  })

  it('answers malformed JSON with 400 parse_error and JSON-RPC code -32700', async () => {
    const before = seen()
    const res = await postRaw('{"jsonrpc": "2.0", "id": 1, "method": ')
    assert.equal(res.headers['x-burrow-error'], 'parse_error')
    assertRefusal(res, {
      policy: 'parse_error',
      jsonRpcCode: JSONRPC_CODE.parseError,
      reason: /not valid JSON/,
    })
    assert.equal(seen(), before)
  })

  it('refuses a compressed request body unread by the server: the edge reads what it sends', async () => {
    const before = seen()
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    for (const coding of ['gzip', 'br', 'deflate', 'identity, gzip']) {
      const body = coding === 'br' ? brotliCompressSync(call) : gzipSync(call)
      const res = await postRaw(body, {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-encoding': coding,
        },
      })
      assertRefusal(res, {
        policy: 'invalid_request',
        jsonRpcCode: JSONRPC_CODE.invalidRequest,
        reason: /content-encoding/,
      })
    }
    assert.equal(seen(), before)
  })

  it('refuses a body labelled in a charset other than UTF-8, with its id: the edge reads UTF-8', async () => {
    const before = seen()
    // In UTF-7, which express.json() decodes, +AGQ- is "d": the server would read delete_file.
    const call =
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"+AGQ-elete_file"}}'
    for (const type of [
      'application/json; charset=utf-7',
      'application/json;CHARSET="UTF-7"',
      'application/json; charset=utf-8; charset=utf-16le',
      'application/json; charset=',
    ]) {
      const res = await postRaw(call, {
        headers: { 'content-type': type, accept: 'application/json' },
      })
      assertRefusal(res, {
        policy: 'invalid_request',
        id: 9,
        jsonRpcCode: JSONRPC_CODE.invalidRequest,
        reason: /charset/,
      })
    }
    assert.equal(seen(), before)
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF8"']) {
      const pending = postRaw('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
        headers: { 'content-type': type, accept: 'application/json' },
      })
      const req = await client.nextRequest()
      req.replyJson(200, { jsonrpc: '2.0', id: 1, result: { tools: [] } })
      assert.equal((await pending).status, 200, type)
    }
  })

  it('answers a JSON scalar body with 400 invalid_request and JSON-RPC code -32600', async () => {
    const before = seen()
    for (const scalar of ['42', '"tools/list"', 'null', 'true']) {
      const res = await postRaw(scalar)
      assertRefusal(res, { policy: 'invalid_request', jsonRpcCode: JSONRPC_CODE.invalidRequest })
    }
    assert.equal(seen(), before)
  })

  it('carries a body over 64 KiB (under the limit) to the client intact, as DATA', async () => {
    const pad = randomBytes(50 * 1024).toString('hex') // 100 KiB of text
    const message = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'big',
        method: 'tools/call',
        params: { name: 't', pad },
      }),
    )
    assert.ok(message.length > 64 * 1024 && message.length < MAX_BODY)
    const pending = postRaw(message)
    const req = await client.nextRequest()
    assert.equal(req.inline, undefined, 'a body over 64 KiB rode inline')
    assert.equal(req.openFin, false)
    const body = await within(req.body, 5_000, 'the whole body at the client')
    assert.ok(req.dataChunks.length >= 2, `${req.dataChunks.length} DATA frames`)
    assert.ok(body.equals(message), 'the body arrived altered')
    req.replyJson(200, { jsonrpc: '2.0', id: 'big', result: { bytes: body.length } })
    const res = await pending
    assert.equal(res.status, 200)
    assert.deepEqual(JSON.parse(res.text), {
      jsonrpc: '2.0',
      id: 'big',
      result: { bytes: message.length },
    })
  })

  it('streams SSE events to the agent as they are written, marked unbufferable', async () => {
    const { req: agentReq, response } = openRequest(service.port, host, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}',
    })
    const req = await client.nextRequest()
    req.stream.respond({ status: 200, headers: SSE_HEADERS })
    req.stream.write(Buffer.from('event: message\ndata: {"progress":1}\n\n'))

    const res = await within(response, 5_000, 'the response head')
    assert.equal(res.statusCode, 200)
    // Sent as UTF-8, as the edge reads it (rug-pull protection is on by default).
    assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8')
    assert.equal(res.headers['x-accel-buffering'], 'no')
    const reader = collect(res)
    const first = await reader.until('data: {"progress":1}\n\n')
    assert.ok(!first.includes('progress":2'))

    req.stream.write(Buffer.from('event: message\ndata: {"progress":2}\n\n'))
    req.stream.end()
    const all = await within(reader.done, 5_000, 'the end of the SSE response')
    assert.equal(
      all,
      'event: message\ndata: {"progress":1}\n\nevent: message\ndata: {"progress":2}\n\n',
    )
    agentReq.destroy()
  })

  it('drops hop-by-hop headers from the response and sets its own Content-Length', async () => {
    const pending = post({ jsonrpc: '2.0', id: 'rh', method: 'initialize' })
    const req = await client.nextRequest()
    const body = '{"jsonrpc":"2.0","id":"rh","result":{}}'
    req.reply(
      200,
      [
        ['content-type', 'application/json'],
        ['connection', 'x-private'],
        ['x-private', 'secret'],
        ['keep-alive', 'timeout=1'],
        ['upgrade', 'h2c'],
        ['proxy-authenticate', 'Basic'],
        ['trailer', 'x-checksum'],
        ['transfer-encoding', 'chunked'],
        ['content-length', '999'],
        ['mcp-session-id', 'sess-1'],
        ['x-custom', 'kept'],
      ],
      body,
    )
    const res = await pending
    assert.equal(res.status, 200)
    assert.equal(res.text, body)
    assert.equal(res.headers['content-length'], String(body.length))
    assert.equal(res.headers['transfer-encoding'], undefined)
    assert.equal(res.headers['x-private'], undefined)
    assert.equal(res.headers.upgrade, undefined)
    assert.equal(res.headers['proxy-authenticate'], undefined)
    assert.equal(res.headers.trailer, undefined)
    assert.notEqual(res.headers['keep-alive'], 'timeout=1')
    assert.doesNotMatch(String(res.headers.connection), /x-private/)
    assert.equal(res.headers['mcp-session-id'], 'sess-1')
    assert.equal(res.headers['x-custom'], 'kept')
    assert.match(String(res.headers['access-control-expose-headers']), /mcp-session-id/)
    // burrow up's own 502 says why in x-burrow-error: a browser agent may read it.
    assert.match(String(res.headers['access-control-expose-headers']), /x-burrow-error/)
  })

  it('answers 502 upstream_unreachable with the reason when the client resets before responding', async () => {
    const pending = post({ jsonrpc: '2.0', id: 'up-1', method: 'tools/list' })
    const req = await client.nextRequest()
    const reason = 'http://127.0.0.1:9/mcp: connect ECONNREFUSED 127.0.0.1:9'
    req.stream.reset(RESET_CODE.upstream, reason)
    const body = assertRefusal(await pending, { policy: 'upstream_unreachable', id: 'up-1' })
    assert.equal(body.error.data.reason, reason)
  })

  it('answers 503 tunnel_offline when the client keeps refusing the stream before responding', async () => {
    const pending = post({ jsonrpc: '2.0', id: 77, method: 'tools/list' })
    let answered = false
    const settle = () => (answered = true)
    pending.then(settle, settle)
    // Refuse every time it comes (a client or node moving on) until the agent is answered. No
    // wait for a request is left behind for a later test.
    let tries = 0
    while (!answered) {
      const req = client.takeRequest()
      if (req === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
      else {
        tries++
        req.stream.reset(RESET_CODE.refused, 'draining')
      }
    }
    // Sent again for as long as a request waits for a reconnecting client, not four times.
    assert.ok(tries > 5, `sent ${tries} times`)
    assertRefusal(await pending, { policy: 'tunnel_offline', id: 77, reason: /draining/ })
  })

  it('sends a request the client refused before processing again, and relays that answer', async () => {
    const pending = post({ jsonrpc: '2.0', id: 78, method: 'tools/list' })
    const first = await client.nextRequest()
    first.stream.reset(RESET_CODE.refused, 'moving to a new connection')
    const again = await client.nextRequest()
    assert.deepEqual(JSON.parse((await again.body).toString()), {
      jsonrpc: '2.0',
      id: 78,
      method: 'tools/list',
    })
    again.stream.respond({ status: 200, headers: [['content-type', 'application/json']] })
    again.stream.write(Buffer.from('{"jsonrpc":"2.0","id":78,"result":{"tools":[]}}'))
    again.stream.end()
    const answer = await pending
    assert.equal(answer.status, 200)
  })

  it('aborts the agent response when the client disconnects mid-response', async () => {
    const { own, ownHost } = await ownTunnel('cut-off')
    try {
      const { req: agentReq, response } = openRequest(service.port, ownHost, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///r"}}',
      })
      const req = await own.nextRequest()
      req.stream.respond({ status: 200, headers: [['content-type', 'application/json']] })
      req.stream.write(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"contents":['))
      // The edge holds back the last chunk of a JSON answer until it knows what it completes
      // (a listing the request did not make is cut off): the first goes on with the second.
      await new Promise((resolve) => setTimeout(resolve, 20))
      req.stream.write(Buffer.from('{"uri":"file:///a"'))
      const res = await within(response, 5_000, 'the response head')
      assert.equal(res.statusCode, 200)
      const reader = collect(res)
      await reader.until('"contents":[')
      await own.terminate()
      await assert.rejects(
        within(reader.done, 5_000, 'the agent response to be cut off'),
        /aborted|before it was complete/,
      )
      assert.equal(res.complete, false, 'a truncated response looked complete to the agent')
      agentReq.destroy()
    } finally {
      await own.close()
    }
  })

  it('resets the stream with CANCEL when the agent hangs up mid-response', async () => {
    const { req: agentReq, response } = openRequest(service.port, host, {
      headers: { accept: 'text/event-stream' },
    })
    const req = await client.nextRequest()
    assert.equal(req.head.method, 'GET')
    req.stream.respond({ status: 200, headers: SSE_HEADERS })
    req.stream.write(Buffer.from(': keep-alive\n\n'))
    const res = await within(response, 5_000, 'the response head')
    // A keep-alive reached the agent (its own, or the edge's when the stream is rewritten).
    await collect(res).until(':')
    agentReq.destroy()
    const reset = await within(req.reset, 5_000, 'a reset at the client')
    assert.equal(reset.code, RESET_CODE.cancel)
    assert.match(reset.reason, /agent/)
  })
})
