/**
 * Property-based fuzzing of the edge's request parsing through a real burrowd (fast-check,
 * bounded runs): random and mutated requests (methods, paths, headers, JSON-RPC bodies and
 * batches, byte noise) never crash burrowd, never close the tunnel connection, and whatever the
 * edge refuses is the envelope, carrying the request's id when it has one it could read.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { rawRequest } from '../../../../test/helpers/raw-http.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'

const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    method: fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'x/y'),
    params: fc.record({ name: fc.string({ maxLength: 10 }) }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.constantFrom('notifications/progress', 'tools/call'),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), result: fc.object({ maxDepth: 1 }) }),
  fc.jsonValue({ maxDepth: 3 }),
)

const body = fc.oneof(
  message.map((m) => JSON.stringify(m)),
  fc.array(message, { maxLength: 5 }).map((ms) => JSON.stringify(ms)),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('[]', '{', '['.repeat(200) + ']'.repeat(200), ''),
  // A valid call with a few bytes flipped.
  fc.tuple(fc.nat(60), fc.integer({ min: 32, max: 126 })).map(([at, c]) => {
    const s = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 't' } })
    return s.slice(0, at % s.length) + String.fromCharCode(c) + s.slice((at % s.length) + 1)
  }),
)

const headerLine = fc.oneof(
  fc.constantFrom(
    'Accept: application/json, text/event-stream',
    'MCP-Protocol-Version: 2025-03-26',
    'MCP-Protocol-Version: 2025-06-18',
    'Mcp-Session-Id: abc',
    'Connection: keep-alive, x-y',
    `X-Big: ${'"'.repeat(9000)}`,
  ),
  fc.stringMatching(/^x-[a-z]{1,8}: [ -~]{0,40}$/),
)

const requestArb = fc.record({
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS'),
  path: fc.oneof(
    fc.constant('/mcp'),
    fc.constant('/mcp?x=1'),
    fc.stringMatching(/^\/[a-z?=&%0-9]{0,20}$/),
    fc.integer({ min: 8100, max: 8300 }).map((n) => '/mcp?' + 'q'.repeat(n)),
  ),
  headers: fc.oneof(
    fc.array(headerLine, { maxLength: 6 }),
    fc
      .integer({ min: 250, max: 270 })
      .map((n) => Array.from({ length: n }, (_, i) => `X-H${i}: v`)),
  ),
  body,
})

describe('edge fuzzing through a real burrowd', () => {
  let service: Service
  let client: FakeClient
  let host: string
  let forwarded = 0
  let stopped = false

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('fuzz')
    host = new URL(tunnel.publicUrl).host
    client = await connectFake(service.broker, tunnel.key)
    // Answer everything that gets through, as a local server would.
    void (async () => {
      while (!stopped) {
        const req = await client.nextRequest(500).catch(() => null)
        if (req === null) continue
        forwarded++
        await req.body
        req.replyJson(200, { jsonrpc: '2.0', id: 1, result: {} })
      }
    })()
  })

  after(async () => {
    stopped = true
    await client?.close().catch(() => {})
    await service?.close()
  })

  it('answers every random request with a response or the envelope, and the tunnel stays', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const answer = await rawRequest(
          service.port,
          [`${r.method} ${r.path} HTTP/1.1`, `Host: ${host}`, ...r.headers],
          r.body,
        )
        assert.ok(Number.isInteger(answer.status), 'an HTTP answer')
        const policy = answer.header('x-burrow-error')
        // The local server answers 200 to whatever reaches it, and a preflight gets 204: any
        // other answer is burrowd's own refusal, and every refusal is the envelope.
        if (answer.status !== 200 && !(answer.status === 204 && r.method === 'OPTIONS')) {
          assert.ok(policy !== undefined, `${answer.status} without the envelope: ${answer.body}`)
        }
        if (policy !== undefined) {
          const parsed = JSON.parse(answer.body) as unknown
          const envelopes = Array.isArray(parsed) ? parsed : [parsed]
          for (const e of envelopes as {
            jsonrpc: string
            error: { data: { policy_code: string; http_status: number } }
          }[]) {
            assert.equal(e.jsonrpc, '2.0')
            assert.equal(e.error.data.policy_code, policy)
            assert.equal(e.error.data.http_status, answer.status)
          }
        }
      }),
      { numRuns: 250, seed: 1125 },
    )
    assert.ok(forwarded > 0, 'some requests were valid and forwarded')
    // The fake client is still connected: a broken connection would have closed its socket.
    assert.equal(client.ws.readyState, client.ws.OPEN)
    assert.doesNotMatch(service.proc.stderr, /protocol error|request failed|internal error/)
  })
})
