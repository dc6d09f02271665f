/**
 * The JSON API's answer to making an agent token carries the client snippet with that token, as
 * the dashboard's Access tab shows it on the page that made it: a `token` tunnel's entry with
 * `Authorization: Bearer <the new secret>`, otherwise the tunnel's own snippet; null when the
 * tunnel is not in `token` mode (the dashboard shows none then: the token is not asked for).
 * Before, the API answered the token and its secret alone. Real burrowd over SQLite, called with
 * an API token the operator made.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, describe, it } from 'node:test'
import { BURROWD, startService, type Service } from '../helpers/stack.js'

const run = promisify(execFile)

interface Entry {
  url: string
  headers?: Record<string, string>
}
interface Snippet {
  mcpServers: Record<string, Entry>
}
interface Tunnel {
  id: string
  mcp_url: string
  snippet: Snippet
}
interface MadeToken {
  agent_token?: { id: string; name: string }
  secret?: string
  snippet?: Snippet | null
  error?: { code: string; field?: string }
}

describe('API: making an agent token answers its snippet', { timeout: 60_000 }, () => {
  let service: Service
  let token = ''

  before(async () => {
    service = await startService({}, { plan: 'scale' })
    const made = await run(
      process.execPath,
      [BURROWD, 'token', 'create', '--account', 'acme', '--json'],
      { env: service.env },
    )
    token = (JSON.parse(made.stdout) as { token: string }).token
  })

  after(async () => {
    await service?.close()
  })

  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, json: (text === '' ? {} : JSON.parse(text)) as T }
  }
  const makeTunnel = async (name: string, access: string) => {
    const made = await api<{ tunnel: Tunnel }>('POST', '/api/tunnels', { name, access })
    assert.equal(made.status, 201, JSON.stringify(made.json))
    return made.json.tunnel
  }
  const makeToken = (tunnelId: string, name: unknown) =>
    api<MadeToken>('POST', `/api/tunnels/${tunnelId}/agent-tokens`, { name })

  it('a token tunnel: the tunnel’s snippet with the new secret in its header', async () => {
    const t = await makeTunnel('files "<b>x</b>', 'token')
    const made = await makeToken(t.id, 'laptop agent')
    assert.equal(made.status, 201, JSON.stringify(made.json))
    const secret = made.json.secret!
    assert.match(secret, /^atk_/)
    // The tunnel's snippet (the placeholder in its header) with the secret in the placeholder's
    // place: the entry's name and URL are the tunnel's.
    const [[entryName, entry]] = Object.entries(t.snippet.mcpServers) as [[string, Entry]]
    assert.deepEqual(entry.headers, { Authorization: 'Bearer atk_…' })
    assert.deepEqual(made.json.snippet, {
      mcpServers: {
        [entryName]: { url: t.mcp_url, headers: { Authorization: `Bearer ${secret}` } },
      },
    })
    // Shown only here: the tunnel's own snippet keeps the placeholder.
    const again = await api<Tunnel>('GET', `/api/tunnels/${t.id}`)
    assert.deepEqual(again.json.snippet, t.snippet)
  })

  it('a tunnel not in token mode: no snippet, as the dashboard shows none', async () => {
    for (const access of ['oauth', 'public']) {
      const t = await makeTunnel(`not-token-${access}`, access)
      const made = await makeToken(t.id, 'agent')
      assert.equal(made.status, 201, JSON.stringify(made.json))
      assert.match(made.json.secret!, /^atk_/)
      assert.equal(made.json.snippet, null, access)
    }
  })

  it('refuses a bad name with the error object alone: no secret, no snippet', async () => {
    const t = await makeTunnel('refusals', 'token')
    for (const name of ['', 'x'.repeat(10_000), 'tab\there', 42, null, { a: 1 }]) {
      const res = await makeToken(t.id, name)
      assert.equal(res.status, 400, JSON.stringify(name))
      assert.equal(res.json.error?.code, 'invalid', JSON.stringify(res.json))
      assert.equal(res.json.secret, undefined)
      assert.equal(res.json.snippet, undefined)
    }
    const listed = await api<{ agent_tokens: unknown[] }>(
      'GET',
      `/api/tunnels/${t.id}/agent-tokens`,
    )
    assert.deepEqual(listed.json.agent_tokens, [])
  })

  it('concurrent and repeated creations: each answer’s snippet carries its own secret', async () => {
    const t = await makeTunnel('concurrent', 'token')
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => makeToken(t.id, `n${i}`)))
    made.push(await makeToken(t.id, 'n0'))
    for (const m of made) {
      assert.equal(m.status, 201, JSON.stringify(m.json))
      const entry = Object.values(m.json.snippet!.mcpServers)[0]!
      assert.deepEqual(entry.headers, { Authorization: `Bearer ${m.json.secret}` })
    }
    assert.equal(new Set(made.map((m) => m.json.secret)).size, made.length)
  })
})
