/**
 * A session id in an answer must be one MCP allows (visible ASCII), sent once: the edge counts
 * sessions by it against the plan's cap. A server that answered `initialize` with `a b`, or with
 * two `Mcp-Session-Id` fields (an agent reading them joined sends `a, b` back), opened a session
 * the edge could not count: its place was given back, and every later request naming it was
 * forwarded uncounted, past the Free plan's three. Such an answer is refused (502, the
 * envelope with the request's id) and its place given back.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { HeaderPairs } from '@burrow/protocol'
import { connectFake, type FakeClient } from '../../../../test/helpers/fake-client.js'
import { startService, type Service } from '../../../../test/helpers/stack.js'
import { assertRefusal } from '../helpers/assert-refusal.js'
import { hostOf, postJson } from '../helpers/edge-request.js'

const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'answer-session-id', version: '1.0.0' },
  },
})

const RESULT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  result: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    serverInfo: { name: 's', version: '1' },
  },
})

describe('session ids in answers', () => {
  let service: Service
  let client: FakeClient
  let host: string

  before(async () => {
    service = await startService()
    const tunnel = await service.tunnel('answer-ids')
    host = hostOf(tunnel.publicUrl)
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close()
    await service?.close()
  })

  /** Initialize `id`, answered by the server with `sessionHeaders`. */
  async function initializeWith(id: number, sessionHeaders: HeaderPairs) {
    const pending = postJson(service.port, host, initialize(id))
    const req = await client.nextRequest()
    req.reply(200, [['content-type', 'application/json'], ...sessionHeaders], RESULT)
    return pending
  }

  it('refuses an answer whose session id is not visible ASCII, or is sent twice', async () => {
    const bad: HeaderPairs[] = [
      [['Mcp-Session-Id', 'a b']],
      [['Mcp-Session-Id', 'caf\u00e9']],
      [['Mcp-Session-Id', '']],
      [
        ['Mcp-Session-Id', 'one'],
        ['mcp-session-id', 'two'],
      ],
    ]
    let id = 1
    for (const headers of bad) {
      // Four in a row on a plan of three: each place was given back.
      assertRefusal(await initializeWith(id, headers), {
        policy: 'upstream_unreachable',
        id,
        reason: /session id/i,
      })
      id++
    }
  })

  it('passes an answer with one session id MCP allows, and counts its session', async () => {
    for (const [i, sid] of ['s-1', 's-2', 's-3'].entries()) {
      const res = await initializeWith(10 + i, [['Mcp-Session-Id', sid]])
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers['mcp-session-id'], sid)
    }
  })
})
