// What `up` says about who may call the tunnel, per access mode, and the snippet that goes with it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { accessChange, accessLines, snippetHeaders } from '../../src/up/access-lines.js'
import { announcement, clientSnippet } from '../../src/up/snippet.js'

const url = 'http://localhost:7100/dashboard/tunnels/tun_1/access'
const base = { publicUrl: 'http://a--b.localhost:7100', tunnelId: 'tun_1' }

/** The JSON block that starts at `marker` in `text`. */
function block(text: string, marker: string): unknown {
  const at = text.indexOf(marker)
  const end = text.indexOf('\n}\n', at)
  return JSON.parse(text.slice(at, end + 2))
}

describe('access lines', () => {
  it('oauth: agents sign in by themselves, owners approve on the Access tab', () => {
    const text = accessLines({ ...base, access: { mode: 'oauth', url } }).join('\n')
    assert.match(text, /^Who may call: +agents that sign in with OAuth \(access mode: oauth\)/)
    assert.match(text, /Claude/)
    assert.match(text, /by themselves/)
    assert.match(text, /approve/)
    assert.ok(text.includes(url))
    assert.doesNotMatch(text, /atk_/)
  })
  it('token: an agent token as Authorization: Bearer, made on the Access tab or with the API', () => {
    const text = accessLines({ ...base, access: { mode: 'token', url } }).join('\n')
    assert.match(text, /agent token \(access mode: token\)/)
    assert.match(text, /"Authorization: Bearer atk_…"/)
    assert.ok(text.includes(url))
    assert.match(text, /POST \/api\/tunnels\/tun_1\/agent-tokens/)
  })
  it('says where the Access tab is in words when the broker gave no URL', () => {
    const text = accessLines({ ...base, access: { mode: 'oauth' } }).join('\n')
    assert.match(text, /Access tab/)
    assert.doesNotMatch(text, /undefined|http:\/\/localhost/)
  })
  it('public: nothing extra', () => {
    assert.deepEqual(accessLines({ ...base, access: { mode: 'public', url } }), [])
  })
  it('a mode this client does not know (a newer broker): names it and points at the tab', () => {
    const text = accessLines({ ...base, access: { mode: 'sso', url } }).join('\n')
    assert.match(text, /access mode: sso/)
    assert.ok(text.includes(url))
  })
  it('an older broker that does not say: one line on what a 401 means', () => {
    const lines = accessLines(base)
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /401/)
    assert.match(lines[0]!, /Access tab/)
  })
  it('a tunnel id with terminal escapes is printed escaped', () => {
    const text = accessLines({ ...base, tunnelId: 'x\u001b[2J', access: { mode: 'token' } }).join(
      '\n',
    )
    assert.ok(!text.includes('\u001b'))
  })
})

describe('announcement per mode', () => {
  it('token: the Who-may-call lines come before the snippets, which carry the header', () => {
    const text = announcement({ ...base, access: { mode: 'token', url } }, 'stdio: s', null)
    assert.ok(text.indexOf('Who may call:') > text.indexOf('Tunnel online:'))
    assert.ok(text.indexOf('Who may call:') < text.indexOf('"mcpServers"'))
    const entry = {
      url: 'http://a--b.localhost:7100/mcp',
      headers: { Authorization: 'Bearer atk_…' },
    }
    assert.deepEqual(block(text, '{\n  "mcpServers"'), { mcpServers: { burrow: entry } })
    assert.deepEqual(block(text, '{\n  "servers"'), { servers: { burrow: entry } })
  })
  it('oauth and public: the snippet is the URL alone', () => {
    for (const mode of ['oauth', 'public']) {
      const text = announcement({ ...base, access: { mode, url } }, 'stdio: s', null)
      assert.deepEqual(block(text, '{\n  "mcpServers"'), {
        mcpServers: { burrow: { url: 'http://a--b.localhost:7100/mcp' } },
      })
    }
  })
  it('public prints what it printed before access existed', () => {
    assert.equal(
      announcement({ ...base, access: { mode: 'public', url } }, 'stdio: s', 'n'),
      announcement(base, 'stdio: s', 'n').replace(/\nIf agents get 401[^\n]*\n/, '\n'),
    )
  })
  it('snippet headers only for token mode', () => {
    assert.deepEqual(snippetHeaders({ mode: 'token' }), { Authorization: 'Bearer atk_…' })
    assert.equal(snippetHeaders({ mode: 'oauth' }), undefined)
    assert.equal(snippetHeaders(undefined), undefined)
    assert.deepEqual(clientSnippet('https://x', null, { Authorization: 'Bearer atk_…' }), {
      mcpServers: { burrow: { url: 'https://x/mcp', headers: { Authorization: 'Bearer atk_…' } } },
    })
  })
})

describe('access change', () => {
  it('says what changed and what agents need now', () => {
    assert.match(
      accessChange({ ...base, access: { mode: 'token', url } }),
      /^The tunnel's access changed: agents that send an agent token/m,
    )
    assert.match(accessChange({ ...base, access: { mode: 'token', url } }), /Bearer atk_…/)
    assert.match(accessChange({ ...base, access: { mode: 'oauth', url } }), /sign in with OAuth/)
    assert.match(accessChange({ ...base, access: { mode: 'public', url } }), /anyone with the URL/)
  })
})
