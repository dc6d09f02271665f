/**
 * The mirrored headers of a 2026-07-28 request (`Mcp-Method`, `Mcp-Name`) as the edge reads them:
 * the edge judges a call (policy, history, quotas) by its body, so one whose headers name another
 * method or tool is refused (400, -32020, with its id) before it reaches a server that might route
 * by the header; headers left out, or that match once trimmed and decoded, pass.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { JSONRPC_CODE } from '@burrow/protocol'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { hostOf, postJson } from '../helpers/edge-request.js'

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
