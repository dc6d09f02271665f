// The snippet shown with a new agent token (dashboard and API alike): a `token` tunnel's entry
// with the secret in its header, at the custom domain when one serves the tunnel; none for
// `oauth` and `public` tunnels.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { agentTokenSnippet } from '../../src/app/agent-token-snippet.js'
import type { TunnelWithAccess } from '../../src/app/tunnel-view.js'

const tunnel: TunnelWithAccess = {
  id: 'tun_1',
  name: 'docs',
  subdomain: 'docs',
  publicUrl: 'https://docs--acme.tunnels.example.com',
  online: false,
  serving: true,
  pinned: false,
  createdAt: new Date(0),
  lastSeenAt: null,
  accessMode: 'token',
}

describe('agentTokenSnippet', () => {
  it('puts the secret in a token tunnel’s header', () => {
    assert.deepEqual(agentTokenSnippet(tunnel, 'atk_secret'), {
      mcpServers: {
        'docs-via-tunnel': {
          url: 'https://docs--acme.tunnels.example.com/mcp',
          headers: { Authorization: 'Bearer atk_secret' },
        },
      },
    })
  })

  it('points at the custom domain when one serves the tunnel', () => {
    const custom = { ...tunnel, customUrl: 'https://mcp.example.org' }
    const entry = agentTokenSnippet(custom, 'atk_secret')!.mcpServers['docs-via-tunnel']!
    assert.equal(entry.url, 'https://mcp.example.org/mcp')
  })

  it('is null for tunnels whose agents send no agent token', () => {
    assert.equal(agentTokenSnippet({ ...tunnel, accessMode: 'oauth' }, 'atk_secret'), null)
    assert.equal(agentTokenSnippet({ ...tunnel, accessMode: 'public' }, 'atk_secret'), null)
  })
})
