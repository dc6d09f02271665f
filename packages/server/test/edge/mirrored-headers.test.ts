/**
 * The mirrored headers of a 2026-07-28 request (`Mcp-Method`, `Mcp-Name`) as the edge reads them:
 * the edge judges a call (policy, history, quotas) by its body, so one whose headers name another
 * method or tool, or that sends one of them (or `Mcp-Param-*`, `MCP-Protocol-Version`) twice, is
 * refused (400, -32020, with its id) before it reaches a server that might route by the header;
 * so is any request (GET and DELETE too) that sends `Mcp-Session-Id` or `Last-Event-ID` twice;
 * headers left out, or that match once trimmed and decoded, pass.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { JSONRPC_CODE } from '@burrow/protocol'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { edgeRequest, hostOf, postJson } from '../helpers/edge-request.js'

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: META },
})

describe('mirrored headers at the edge', () => {
  let service: Service
  let client: FakeClient
  let host: string

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const tunnel = await service.tunnel('mirrors')
    host = hostOf(tunnel.publicUrl)
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close()
    await service?.close()
  })

  it('refuses a request whose Mcp-Name or Mcp-Method names something its body does not', async () => {
    const before = client.requests.length
    const refusals: [unknown, Record<string, string>][] = [
      [call(1, 'read_file'), { 'mcp-method': 'tools/call', 'mcp-name': 'delete_file' }],
      [call(2, 'read_file'), { 'mcp-name': '=?base64?ZGVsZXRlX2ZpbGU=?=' }],
      [call(3, 'read_file'), { 'mcp-method': 'prompts/get', 'mcp-name': 'read_file' }],
      [call(4, 'read_file'), { 'mcp-name': '=?base64?@@@?=' }],
    ]
    for (const [body, headers] of refusals) {
      const res = await postJson(service.port, host, body, headers)
      assertRefusal(res, {
        policy: 'invalid_request',
        id: (body as { id: number }).id,
        jsonRpcCode: JSONRPC_CODE.headerMismatch,
        reason: /Mcp-(Name|Method)/,
      })
    }
    assert.equal(client.requests.length, before, 'nothing reached the server')
  })

  it('refuses a request that sends a mirrored header, or MCP-Protocol-Version, twice', async () => {
    // Node joins repeated fields with ", " (the body names "delete_file, notes", as the joined
    // header does), while the fields reach the server one by one: one reading the first would
    // run delete_file, which the policy never judged.
    const before = client.requests.length
    const legacy = { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { name: 'a, b' } }
    const refusals: [unknown, Record<string, string | string[]>][] = [
      [
        call(11, 'delete_file, notes'),
        { 'mcp-method': 'tools/call', 'mcp-name': ['delete_file', 'notes'] },
      ],
      [
        call(12, 'read_file'),
        { 'mcp-name': 'read_file', 'Mcp-Param-Path': ['/etc/passwd', 'notes.txt'] },
      ],
      [call(13, 'read_file'), { 'mcp-protocol-version': ['2026-07-28', '2026-07-28'] }],
      [call(14, 'read_file'), { 'mcp-method': ['tools/call', 'tools/call'] }],
      [legacy, { 'mcp-protocol-version': '2025-06-18', 'mcp-name': ['a', 'b'] }],
    ]
    for (const [body, headers] of refusals) {
      const id = (body as { id: number }).id
      const pending = postJson(service.port, host, body, headers)
      // A request that reaches the server is answered, so that the test fails rather than waits.
      let answered = false
      void pending.finally(() => (answered = true))
      while (!answered) {
        const reached = client.takeRequest()
        if (reached !== undefined) {
          reached.replyJson(200, { jsonrpc: '2.0', id, result: { content: [] } })
          await pending
          assert.fail(`forwarded with ${JSON.stringify(headers)}`)
        }
        await delay(10)
      }
      assertRefusal(await pending, {
        policy: 'invalid_request',
        id,
        jsonRpcCode: JSONRPC_CODE.headerMismatch,
        reason:
          /(Mcp-Name|Mcp-Method|Mcp-Param-Path|mcp-protocol-version) header is sent more than once/i,
      })
    }
    assert.equal(client.requests.length, before, 'nothing reached the server')
  })

  it('refuses any request that sends Mcp-Session-Id, Last-Event-ID or another such header twice', async () => {
    // A server reading the first Mcp-Session-Id would serve a session the edge never counted
    // (it read "a, b", no session id at all), and resume the stream of the first Last-Event-ID.
    const before = client.requests.length
    const refusals: [string, Record<string, string | string[]>, number | null][] = [
      ['GET', { 'mcp-session-id': ['a', 'b'] }, null],
      ['GET', { 'mcp-session-id': 'a', 'last-event-id': ['1', '2'] }, null],
      [
        'GET',
        { 'mcp-session-id': 'a', 'mcp-protocol-version': ['2025-06-18', '2025-11-25'] },
        null,
      ],
      ['DELETE', { 'mcp-session-id': ['a', 'b'] }, null],
      ['DELETE', { 'mcp-session-id': 'a', 'mcp-name': ['x', 'y'] }, null],
      ['POST', { 'mcp-session-id': ['a', 'b'] }, 21],
    ]
    for (const [method, headers, id] of refusals) {
      const body =
        method === 'POST'
          ? JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } })
          : undefined
      const pending = edgeRequest(service.port, host, {
        method,
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...headers,
        },
        ...(body === undefined ? {} : { body }),
      })
      let answered = false
      void pending.finally(() => (answered = true))
      while (!answered) {
        const reached = client.takeRequest()
        if (reached !== undefined) {
          reached.replyJson(200, { jsonrpc: '2.0', id, result: {} })
          await pending
          assert.fail(`${method} forwarded with ${JSON.stringify(headers)}`)
        }
        await delay(10)
      }
      assertRefusal(await pending, {
        policy: 'invalid_request',
        id,
        jsonRpcCode: JSONRPC_CODE.headerMismatch,
        reason:
          /(mcp-session-id|last-event-id|mcp-protocol-version|mcp-name) header is sent more than once/i,
      })
    }
    assert.equal(client.requests.length, before, 'nothing reached the server')
  })

  it('forwards a request whose headers match, or are left out', async () => {
    for (const headers of [
      { 'mcp-method': 'tools/call', 'mcp-name': ' read_file ' },
      { 'mcp-method': 'tools/call', 'mcp-name': '=?base64?cmVhZF9maWxl?=' },
      {},
    ]) {
      const pending = postJson(service.port, host, call(5, 'read_file'), headers)
      const req = await client.nextRequest()
      req.replyJson(200, { jsonrpc: '2.0', id: 5, result: { content: [] } })
      assert.equal((await pending).status, 200, JSON.stringify(headers))
    }
  })
})
