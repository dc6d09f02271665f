/**
 * What rug-pull pins keep of tool definitions is redacted as call history is. Found by a hostile
 * review: a secret in a tool's definition (an API key in its description, a token as a schema's
 * default) was masked in the history of the `tools/list` that carried it, and stored as sent in
 * the pins, shown by the Tools tab and its API.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { connectFake, type FakeClient } from '../helpers/fake-client.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { BURROWD, startService, type Service } from '../helpers/stack.js'
import { bearerApi } from '../helpers/web-client.js'

const run = promisify(execFile)
const KEY = `ghp_${'A1b2C3d4E5'.repeat(4)}`
const CUSTOM = 'corp-secret-7f3a9c'

describe('pinned tool definitions under redaction', { timeout: 120_000 }, () => {
  let service: Service
  let token: string
  let tunnel: { id: string; key: string; url: string }
  let client: FakeClient

  const api = (method: string, path: string, body?: unknown) =>
    bearerApi(`http://127.0.0.1:${service.port}`, token)<Record<string, unknown>>(
      method,
      path,
      body,
    )

  /** An agent lists the tools; the local server answers `tools`. */
  const list = async (id: number, tools: unknown[]) => {
    const answered = client
      .nextRequest(5_000)
      .then((req) => req.replyJson(200, { jsonrpc: '2.0', id, result: { tools } }))
    const res = await publicFetch(tunnel.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    })
    await answered
    return res
  }

  const toolsView = async () => {
    const deadline = Date.now() + 10_000
    for (;;) {
      const got = await api('GET', `/api/tunnels/${tunnel.id}/tools`)
      assert.equal(got.status, 200)
      const tools = got.json.tools as unknown[]
      if (tools.length > 0 || Date.now() > deadline) return JSON.stringify(got.json)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  before(async () => {
    service = await startService()
    const { stdout } = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--name', 'pins', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(stdout) as { token: string }).token
    tunnel = await service.tunnel('pins')
    client = await connectFake(service.broker, tunnel.key)
  })

  after(async () => {
    await client?.close().catch(() => {})
    await service?.close()
  })

  it('keeps definitions masked, and still sees a change behind the mask', async () => {
    const put = await api('PUT', `/api/tunnels/${tunnel.id}/policy`, {
      redaction: { patterns: ['corp-secret-[0-9a-f]+'] },
    })
    assert.equal(put.status, 200, JSON.stringify(put.json))
    const tool = (description: string) => ({
      name: 'deploy',
      description,
      inputSchema: {
        type: 'object',
        properties: { token: { type: 'string', default: KEY } },
      },
    })
    const res = await list(1, [tool(`Deploys with ${CUSTOM}`)])
    const text = await res.text()
    assert.equal(res.status, 200, text)
    // The agent gets the listing as sent (redaction is not forwarded).
    assert.ok(text.includes(KEY))
    const view = await toolsView()
    assert.match(view, /"deploy"/)
    assert.ok(!view.includes(KEY), `the pins show the key: ${view}`)
    assert.ok(!view.includes(CUSTOM), `the pins show the pattern's secret: ${view}`)
    assert.match(view, /REDACTED/)
    // A definition changed only inside what is masked is still a change.
    await list(2, [tool('Deploys with corp-secret-0000')])
    const deadline = Date.now() + 10_000
    let changed = ''
    while (Date.now() < deadline) {
      changed = await toolsView()
      if (changed.includes('"changed"')) break
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.match(changed, /"status":"changed"/)
    assert.ok(!changed.includes('corp-secret-0000'), changed)
  })

  it('pins a tool whose name holds a secret under its masked name, approved by that name', async () => {
    const named = (description: string) => ({
      name: `use-${KEY}`,
      description,
      inputSchema: { type: 'object' },
    })
    // New since the baseline of the test above.
    await list(3, [named('first')])
    const deadline = Date.now() + 10_000
    let view = ''
    while (Date.now() < deadline) {
      view = await toolsView()
      if (view.includes('use-[REDACTED:github_token]#')) break
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.ok(!view.includes(KEY), `the Tools view shows the name's secret: ${view}`)
    const tools = (
      JSON.parse(view) as { tools: { name: string; status: string; current_hash: string }[] }
    ).tools
    const pinned = tools.find((t) => t.name.startsWith('use-[REDACTED:github_token]#'))
    assert.ok(pinned, view)
    assert.equal(pinned.status, 'new')
    const approved = await api(
      'POST',
      `/api/tunnels/${tunnel.id}/tools/${encodeURIComponent(pinned.name)}/approve`,
      { hash: pinned.current_hash },
    )
    assert.equal(approved.status, 200, JSON.stringify(approved.json))
    assert.equal(approved.json.status, 'approved')
    assert.ok(!JSON.stringify(approved.json).includes(KEY))
  })
})
