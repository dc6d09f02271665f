/**
 * A 2026-07-28 call's `requestState` continues the call at the edge only for the agent that made
 * it, through real burrowd and `burrow up` processes (a v2 SDK server over stdio behind the
 * front's input_required bridge) on a `token` tunnel with two agent tokens: another agent
 * presenting the state makes a new call, counted, and the first agent's own retry is still its
 * call's, uncounted (found by a hostile review: the other agent's request was linked into the
 * first agent's call, free, and the first agent's retry was then counted as a new call).
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { answerOf } from '../../packages/cli/test/helpers/raw-mcp.js'
import type { Child } from '../helpers/child.js'
import { ELICITED_NAME } from '../helpers/era-agents.js'
import { MODERN } from '../helpers/modern-request.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { liveCounter } from '../helpers/quota-stack.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const V2_SERVER = `${ROOT}test/fixtures/v2-sdk-server.mjs`

interface CallJson {
  id: string
  continues: string | null
  agent: string | null
}

describe('2026-07-28 retries of another agent', { timeout: 120_000 }, () => {
  let service: Service
  let cli: Child
  let tunnel: { id: string; url: string }
  let api: (method: string, path: string, body?: unknown) => Promise<unknown>
  const secrets: string[] = []

  /** One 2026-07-28 tools/call of ask_name as the agent holding `secret`. */
  const ask = (secret: string, id: number, extra: Record<string, unknown> = {}) =>
    publicFetch(tunnel.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'ask_name',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
          },
          name: 'ask_name',
          arguments: {},
          ...extra,
        },
      }),
    })
  const counted = () => liveCounter(service, tunnel.id, 'tool_calls')

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' })
    const env = { env: service.env }
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      env,
    )
    const token = (JSON.parse(made.stdout) as { token: string }).token
    api = async (method, path, body) => {
      const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      assert.ok(res.ok, `${method} ${path}: ${res.status}`)
      return res.json()
    }
    const created = (await api('POST', '/api/tunnels', {
      name: 'two-agents',
      access: 'token',
    })) as {
      tunnel: { id: string; mcp_url: string }
      key: string
    }
    tunnel = { id: created.tunnel.id, url: created.tunnel.mcp_url }
    for (const name of ['agent a', 'agent b']) {
      const t = (await api('POST', `/api/tunnels/${tunnel.id}/agent-tokens`, { name })) as {
        secret: string
      }
      secrets.push(t.secret)
    }
    cli = await startClient(service, created.key, ['--stdio', `node "${V2_SERVER}"`])
  })

  after(async () => {
    await cli?.stop()
    await service?.close()
  })

  it("counts another agent's retry with a call's requestState as a new call", async () => {
    const [a, b] = secrets as [string, string]
    const start = await counted()
    const first = (await answerOf(await ask(a, 1))) as {
      result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> }
    }
    assert.equal(first.result.resultType, 'input_required')
    const inputResponses = Object.fromEntries(
      Object.keys(first.result.inputRequests).map((k) => [
        k,
        { action: 'accept', content: { name: ELICITED_NAME } },
      ]),
    )
    const retry = { inputResponses, requestState: first.result.requestState }

    // Agent b presents a's state: burrow up does not resume a's call for it, and the edge counts it.
    const stolen = await ask(b, 2, retry)
    assert.equal(stolen.status, 400)
    await stolen.text()
    assert.equal(await counted(), start + 2, "another agent's request is a call of its own")

    // Agent a's own retry still continues its call, uncounted.
    const own = (await answerOf(await ask(a, 3, retry))) as {
      result: { content: { text: string }[] }
    }
    assert.equal(own.result.content[0]!.text, `hello ${ELICITED_NAME}`)
    assert.equal(await counted(), start + 2, 'the retry of the agent that made the call is free')

    const deadline = Date.now() + 20_000
    let calls: CallJson[] = []
    while (calls.length < 3 && Date.now() < deadline) {
      calls = (
        (await api('GET', `/api/tunnels/${tunnel.id}/calls?tool=ask_name`)) as {
          calls: CallJson[]
        }
      ).calls
      if (calls.length < 3) await new Promise((r) => setTimeout(r, 200))
    }
    const [last, middle, oldest] = calls
    assert.equal(middle!.continues, null, "b's request is not linked into a's call")
    assert.equal(last!.continues, oldest!.id, "a's retry names a's call")
  })
})
