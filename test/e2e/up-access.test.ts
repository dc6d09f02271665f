/**
 * What `burrow up` says about who may call its tunnel, end to end: real burrowd, real `burrow up`
 * child processes, a real local MCP server. Per access mode, the printed text says how agents get
 * in (OAuth sign-in, or an agent token in `Authorization: Bearer`, with the snippet carrying the
 * header), and the agent token the text points at works as printed. While `up` runs, the owner
 * changing the mode through the API makes it say so, once per change.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import type { Child } from '../helpers/child.js'
import { startChild } from '../helpers/child.js'
import { publicFetch } from '../helpers/public-fetch.js'
import { toolCall } from '../helpers/quota-stack.js'
import { BURROWD, ROOT, startClient, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)
const HEADER_LOG = join(ROOT, 'test/fixtures/header-log-server.mjs')

/** The JSON block of `text` that starts at `marker`. */
function block(text: string, marker: string): unknown {
  const at = text.indexOf(marker)
  assert.ok(at >= 0, `no ${JSON.stringify(marker)} in:\n${text}`)
  return JSON.parse(text.slice(at, text.indexOf('\n}\n', at) + 2))
}

describe('burrow up says how agents get in', () => {
  let service: Service
  let local: Child
  let upstream: string
  let apiToken: string
  const clients: Child[] = []

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, json: (await res.json()) as Record<string, unknown> }
  }
  const make = async (name: string, access: string) => {
    const { stdout } = await run(
      process.execPath,
      [
        BURROWD,
        'tunnel',
        'create',
        '--account',
        'acme',
        '--name',
        name,
        '--access',
        access,
        '--json',
      ],
      { env: service.env },
    )
    const t = JSON.parse(stdout) as { id: string; key: string; public_url: string }
    return { id: t.id, key: t.key, url: `${t.public_url}/mcp` }
  }
  const up = async (key: string) => {
    const child = await startClient(service, key, ['--upstream', upstream], { BURROW_LOG: 'info' })
    clients.push(child)
    // The whole announcement: it ends with the VS Code block.
    await child.waitFor(/"servers": \{[\s\S]*\n\}\n/)
    return child
  }
  const accessTab = (id: string) =>
    `http://localhost:${service.port}/dashboard/tunnels/${id}/access`

  before(async () => {
    service = await startService({ BURROW_LOG: 'info' }, { plan: 'scale' })
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    apiToken = (JSON.parse(made.stdout) as { token: string }).token
    local = startChild(process.execPath, [HEADER_LOG], { env: { ...process.env, PORT: '0' } })
    const [, port] = await local.waitFor(/listening on (\d+)/)
    upstream = `http://127.0.0.1:${port}/mcp`
  })

  after(async () => {
    for (const c of clients) await c.stop()
    await local?.stop()
    await service?.close()
  })

  it('oauth: agents sign in by themselves; approving is on the Access tab', async () => {
    const t = await make('signin', 'oauth')
    const out = (await up(t.key)).stdout
    assert.match(out, /Who may call: +agents that sign in with OAuth \(access mode: oauth\)/)
    assert.match(out, /do it by themselves/)
    assert.ok(out.includes(`Approved agents: ${accessTab(t.id)}`), out)
    assert.doesNotMatch(out, /atk_|If agents get 401/)
    assert.deepEqual(block(out, '{\n  "mcpServers"'), {
      mcpServers: { burrow: { url: t.url } },
    })
    // The URL it printed is the Access tab, there for the owner.
    const page = await fetch(accessTab(t.id), { redirect: 'manual' })
    assert.notEqual(page.status, 404)
  })

  it('token: an agent token as Authorization: Bearer, in the snippet; made as printed, it works', async () => {
    const t = await make('keyed', 'token')
    const out = (await up(t.key)).stdout
    assert.match(out, /Who may call: +agents that send an agent token \(access mode: token\)/)
    assert.match(out, /"Authorization: Bearer atk_…"/)
    assert.ok(out.includes(`Make one on the tunnel's Access tab: ${accessTab(t.id)}`), out)
    assert.ok(out.includes(`POST /api/tunnels/${t.id}/agent-tokens`), out)
    const entry = { url: t.url, headers: { Authorization: 'Bearer atk_…' } }
    assert.deepEqual(block(out, '{\n  "mcpServers"'), { mcpServers: { burrow: entry } })
    assert.deepEqual(block(out, '{\n  "servers"'), { servers: { burrow: entry } })
    // Follow the text: make a token with the API it names, put it in the snippet's header.
    const made = await api('POST', `/api/tunnels/${t.id}/agent-tokens`, { name: 'script' })
    assert.equal(made.status, 201)
    const secret = made.json.secret as string
    const call = (headers: Record<string, string>) =>
      publicFetch(t.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(toolCall(1, 'echo', { text: 'hi' })),
      })
    assert.equal((await call({})).status, 401)
    const header = entry.headers.Authorization.replace('atk_…', secret)
    const answered = await call({ Authorization: header })
    assert.equal(answered.status, 200, await answered.text())
  })

  it('public: nothing extra; a change of mode while connected is told once per change', async () => {
    const t = await make('open', 'public')
    const child = await up(t.key)
    assert.doesNotMatch(child.stdout, /Who may call|If agents get 401|atk_/)
    assert.deepEqual(block(child.stdout, '{\n  "mcpServers"'), {
      mcpServers: { burrow: { url: t.url } },
    })
    const changed = /The tunnel's access changed: /g
    assert.equal((await api('PUT', `/api/tunnels/${t.id}/access`, { mode: 'token' })).status, 200)
    await child.waitFor(/The tunnel's access changed: agents that send an agent token/)
    assert.match(child.stdout, /Bearer atk_…/)
    // Not the mode: nothing to tell.
    const ips = await api('PUT', `/api/tunnels/${t.id}/access`, { allow_ips: ['127.0.0.1/32'] })
    assert.equal(ips.status, 200)
    assert.equal((await api('PUT', `/api/tunnels/${t.id}/access`, { mode: 'oauth' })).status, 200)
    await child.waitFor(/The tunnel's access changed: agents that sign in with OAuth/)
    assert.equal((await api('PUT', `/api/tunnels/${t.id}/access`, { mode: 'public' })).status, 200)
    await child.waitFor(/The tunnel's access changed: anyone with the URL may call/)
    assert.equal(child.stdout.match(changed)?.length, 3, child.stdout)
    // The tunnel kept serving throughout: nothing reconnected.
    assert.doesNotMatch(child.stdout + child.stderr, /reconnect/i)
  })
})
